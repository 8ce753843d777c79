// Built for plain sm_90 (CMake: CUDA_ARCHITECTURES 90), not sm_90a: the binary version is 9.0,
// but wgmma and setmaxnreg are compiled out of the Hopper kernels (FUSEKIT_SM90A), whose bodies
// trap. The launcher must tell (the static shared array that marks those bodies) and run the
// GEMMs on the portable main loop; the row kernels' sm_90 paths need no 'a' and stay.
#include <doctest/doctest.h>

#include "arch/linear_check.hpp"
#include "fusekit/gemm.hpp"
#include "support/gpu.hpp"

using namespace fusekit;
using namespace fusekit::test;

GPU_TEST_CASE("plain sm_90 build: the Hopper main loop is never picked; linear runs and is right") {
  DeviceInfo device;
  REQUIRE(current_device(device).ok());
  CHECK_FALSE(gemm::detail::hopper_available<bf16_t, gemm::LinearEpilogue<bf16_t, bf16_t>>(device));
  check_linear_runs_right();
}
