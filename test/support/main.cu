// doctest entry point shared by every fusekit test binary. It says once, up front, whether
// GPU test cases will run, so a CPU-only log shows why they were skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "support/gpu.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  const auto& gpu = fusekit::test::gpu_state();
  if (gpu.available)
    std::printf("[fusekit] GPU tests run on: %s (sm_%d%d, %d SMs)\n", gpu.name.c_str(), gpu.major,
                gpu.minor, gpu.sm_count);
  else
    std::printf("[fusekit] GPU tests SKIPPED: %s\n", gpu.reason.c_str());
  doctest::Context context(argc, argv);
  return context.run();
}
