// benchmark/harness/device_array.hpp: an owning, move-less device allocation for benchmark cases.
#pragma once

#include "device_timing.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fusekit::bench {

struct DeviceArray {
  void* p = nullptr;
  // Never a zero-byte request, so an empty tensor still has a valid (unused) pointer.
  explicit DeviceArray(std::size_t bytes) { FUSEKIT_BENCH_CUDA(cudaMalloc(&p, bytes > 0 ? bytes : 16)); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(p); }
};

}  // namespace fusekit::bench
