// CPU tests of the vector helpers that are host code too.
#include <doctest/doctest.h>

#include "fusekit/core/vector_io.cuh"

#include <cstdint>
#include <cstring>
#include <random>

using namespace fusekit;

TEST_CASE("straddled_words: the 16 bytes at every offset of two aligned words") {
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 64; ++trial) {
    std::uint32_t words[8];
    for (auto& w : words) w = rng();
    unsigned char bytes[32];
    std::memcpy(bytes, words, 32);
    for (unsigned offset = 0; offset < 16; ++offset) {
      std::uint32_t out[4];
      straddled_words(words, offset, out);
      INFO("offset " << offset);
      CHECK(std::memcmp(out, bytes + offset, 16) == 0);
    }
  }
}
