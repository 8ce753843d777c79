// fusekit/core/device.hpp: properties of the current GPU, read once per device and cached.
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda_runtime_api.h>

#include <array>
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

}  // namespace fusekit
