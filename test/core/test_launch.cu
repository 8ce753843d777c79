// GPU test of core/launch.cuh: what a cooperative launch that cannot be resident at once does.
// The few-row GEMM kernel relies on it (kernel_sm90.hpp): such a launch must fail at once with
// cudaErrorCooperativeLaunchTooLarge, run nothing and leave no sticky error (only the thread's
// last error, which the caller clears), so the caller can launch the other way instead.
#include <doctest/doctest.h>

#include "fusekit/core/launch.cuh"
#include "support/gpu.hpp"

namespace {
__global__ void mark(int* flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *flag = 1;
}
}  // namespace

GPU_TEST_CASE("launch: a cooperative grid too large to be resident fails at once, runs nothing, and the next launch works") {
  int* flag = nullptr;
  CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
  CUDA_CHECK(cudaMemset(flag, 0, sizeof(int)));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mark, 1024, 0));
  REQUIRE(per_sm >= 1);
  fusekit::LaunchShape shape;
  shape.block = dim3(1024);
  shape.grid = dim3(static_cast<unsigned>(per_sm * fusekit::test::gpu_state().sm_count + 1));
  shape.cooperative = true;
  CHECK(fusekit::launch_kernel_raw(mark, shape, nullptr, flag) == cudaErrorCooperativeLaunchTooLarge);
  // The refusal is also the thread's last error (the caller clears it), and not a sticky one.
  CHECK(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  CHECK(cudaGetLastError() == cudaSuccess);
  CUDA_CHECK(cudaDeviceSynchronize());
  int ran = -1;
  CUDA_CHECK(cudaMemcpy(&ran, flag, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(ran == 0);
  shape.grid = dim3(static_cast<unsigned>(per_sm * fusekit::test::gpu_state().sm_count));  // fits: runs
  CHECK(fusekit::launch_kernel(mark, shape, nullptr, flag).ok());
  CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpy(&ran, flag, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(ran == 1);
  CUDA_CHECK(cudaFree(flag));
}
