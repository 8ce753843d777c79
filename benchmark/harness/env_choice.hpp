// Benchmark knobs from the environment: FUSEKIT_X=name sets a process-wide enum choice of the library
// (a tile kind, a kernel, an overlap mode) so that one binary can time the choices against each other.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

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

}  // namespace fusekit::bench
