// CPU tests of the benchmarks' size lists from the environment (FUSEKIT_H3_TOKENS=660,925):
// what parses, and that every malformed list is refused with the variable's name.
#include <doctest/doctest.h>

#include "env_choice.hpp"

#include <cstdlib>

using fusekit::bench::env_counts;
using fusekit::bench::parse_counts;

TEST_CASE("size lists parse as comma-separated counts within bounds") {
  CHECK(parse_counts("925", "X", 4096) == std::vector<std::int64_t>{925});
  CHECK(parse_counts("660,661,925,4096", "X", 4096) == std::vector<std::int64_t>{660, 661, 925, 4096});
  CHECK(parse_counts("1", "X", 1) == std::vector<std::int64_t>{1});
}

TEST_CASE("malformed size lists are refused, naming the variable") {
  for (const char* bad : {"", ",", "925,", ",925", "925,,4096", " 925", "925 ", "+925", "-1", "0", "4097", "9x",
                          "0x10", "99999999999999999999"}) {
    CAPTURE(bad);
    try {
      parse_counts(bad, "FUSEKIT_H3_TOKENS", 4096);
      FAIL("accepted");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("FUSEKIT_H3_TOKENS") == 0);
    }
  }
}

TEST_CASE("the environment's list replaces the defaults only where it is set") {
  ::unsetenv("FUSEKIT_TEST_COUNTS");
  CHECK(env_counts("FUSEKIT_TEST_COUNTS", {925, 4096}, 1 << 20) == std::vector<std::int64_t>{925, 4096});
  ::setenv("FUSEKIT_TEST_COUNTS", "37,70", 1);
  CHECK(env_counts("FUSEKIT_TEST_COUNTS", {925, 4096}, 1 << 20) == std::vector<std::int64_t>{37, 70});
  ::setenv("FUSEKIT_TEST_COUNTS", "70;925", 1);
  CHECK_THROWS_AS(env_counts("FUSEKIT_TEST_COUNTS", {925}, 1 << 20), std::runtime_error);
  ::unsetenv("FUSEKIT_TEST_COUNTS");
}
