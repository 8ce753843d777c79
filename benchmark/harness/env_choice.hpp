// Benchmark knobs from the environment: FUSEKIT_X=name sets a process-wide enum choice of the library
// (a tile kind, a kernel, an overlap mode) so that one binary can time the choices against each other;
// FUSEKIT_X=925,4096 a list of sizes for a suite.
#pragma once

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusekit::bench {

// Sets `target` from the environment variable `var` where it is set: one of `choices`' spellings,
// else an error that lists them.
template <class Enum>
void apply_env_choice(const char* var, std::atomic<Enum>& target,
                      std::initializer_list<std::pair<const char*, Enum>> choices) {
  const char* value = std::getenv(var);
  if (value == nullptr) return;
  std::string accepted;
  for (const auto& [name, choice] : choices) {
    if (std::string(value) == name) {
      target = choice;
      std::fprintf(stderr, "fusekit-bench: %s=%s\n", var, value);
      return;
    }
    accepted += (accepted.empty() ? "" : ", ") + std::string(name);
  }
  throw std::runtime_error(std::string(var) + ": expected one of " + accepted + ", got " + value);
}

// "925,4096" as {925, 4096}: comma-separated decimal counts in [1, max], at least one. Anything
// else (empty items, signs, spaces, trailing text, zero, too large) throws, naming `what`.
inline std::vector<std::int64_t> parse_counts(std::string_view text, const char* what, std::int64_t max) {
  std::vector<std::int64_t> counts;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    std::int64_t n = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || error != std::errc{} || end != item.data() + item.size() || n < 1 || n > max)
      throw std::runtime_error(std::string(what) + ": expected comma-separated counts from 1 to " + std::to_string(max) +
                               ", got \"" + std::string(text) + "\"");
    counts.push_back(n);
    if (comma == std::string_view::npos) return counts;
    pos = comma + 1;
  }
}

// The counts in the environment variable `var` where it is set (parse_counts), else `defaults`.
inline std::vector<std::int64_t> env_counts(const char* var, std::vector<std::int64_t> defaults, std::int64_t max) {
  const char* value = std::getenv(var);
  if (value == nullptr) return defaults;
  std::vector<std::int64_t> counts = parse_counts(value, var, max);
  std::fprintf(stderr, "fusekit-bench: %s=%s\n", var, value);
  return counts;
}

}  // namespace fusekit::bench
