// fusekit/core/device.hpp: properties of the current GPU, read once per device and cached.
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace fusekit {

struct DeviceInfo {
  int ordinal = -1;
  int major = 0, minor = 0;
  int sm_count = 0;
  int max_smem_per_block_optin = 0;
  int l2_bytes = 0;
  bool clusters() const { return major >= 9; }  // thread-block clusters and distributed shared memory
};

// The current device's properties. Thread-safe; queries the runtime once per device.
inline Status current_device(DeviceInfo& info) {
  constexpr int kMaxDevices = 64;
  static std::array<DeviceInfo, kMaxDevices> cache{};
  static std::array<std::once_flag, kMaxDevices> once;
  static std::array<cudaError_t, kMaxDevices> errors{};
  int dev = 0;
  FUSEKIT_CUDA_TRY(cudaGetDevice(&dev));
  if (dev < 0 || dev >= kMaxDevices) return {Errc::unsupported_device, "device ordinal beyond 64"};
  std::call_once(once[dev], [dev] {
    DeviceInfo d;
    d.ordinal = dev;
    cudaError_t e = cudaSuccess;
    auto get = [&](int& out, cudaDeviceAttr a) {
      if (e == cudaSuccess) e = cudaDeviceGetAttribute(&out, a, dev);
    };
    get(d.major, cudaDevAttrComputeCapabilityMajor);
    get(d.minor, cudaDevAttrComputeCapabilityMinor);
    get(d.sm_count, cudaDevAttrMultiProcessorCount);
    get(d.max_smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
    get(d.l2_bytes, cudaDevAttrL2CacheSize);
    errors[dev] = e;
    cache[dev] = d;
  });
  if (errors[dev] != cudaSuccess) return Status::cuda(errors[dev], "cudaDeviceGetAttribute");
  info = cache[dev];
  return {};
}

// Once per device: function attributes (a shared-memory opt-in, non-portable cluster sizes) are
// set per device, so a process that calls on two GPUs sets them on each. run(device, f) calls f
// on the current device until it succeeds there; a failure is returned and tried again next time.
class PerDeviceOnce {
 public:
  template <class F> cudaError_t run(int device, F&& f) {
    const bool tracked = device >= 0 && device < 64;  // beyond: set every call (correct, slower)
    const std::uint64_t bit = tracked ? std::uint64_t(1) << device : 0;
    if (tracked && (done_.load(std::memory_order_acquire) & bit)) return cudaSuccess;
    std::lock_guard<std::mutex> lock(mutex_);
    if (tracked && (done_.load(std::memory_order_relaxed) & bit)) return cudaSuccess;
    const cudaError_t e = f();
    if (e == cudaSuccess) done_.fetch_or(bit, std::memory_order_release);
    return e;
  }

 private:
  std::mutex mutex_;
  std::atomic<std::uint64_t> done_{0};
};

// Whether the code this binary runs for a kernel on the current device (its attributes, from
// cudaFuncGetAttributes) was compiled for compute
// capability 9.0 or newer. A binary built only for older targets runs on an sm_90 GPU by JIT from
// their PTX (ptxVersion < 90), where code under `#if __CUDA_ARCH__ >= 900` is compiled out: the
// cluster, staged and Hopper kernels would do nothing or trap. (ptxVersion 0, which cubins that
// do not record it report, defers to the binary's architecture.)
inline bool compiled_for_sm90(const cudaFuncAttributes& kernel) {
  return kernel.binaryVersion >= 90 && (kernel.ptxVersion == 0 || kernel.ptxVersion >= 90);
}

}  // namespace fusekit
