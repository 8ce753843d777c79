// fusekit/core/launch.cuh: kernel launches with programmatic dependent launch (PDL) and clusters.
//
// With PDL (sm_90+) the next kernel in the stream is launched while this one is still running, so
// its CTAs are resident the moment this grid finishes: that saves the launch gap between dependent
// kernels (about a microsecond), which is a large share of small calls. The contract for a kernel
// launched this way: call wait_for_prior_grid() before touching global memory (it returns once the
// previous grid has completed and its writes are visible; at once when there was none), and
// allow_next_grid() once the next kernel may be scheduled.
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace fusekit {

__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

struct LaunchShape {
  dim3 grid, block;
  unsigned cluster = 1;        // CTAs per cluster along x (1: no cluster)
  std::size_t smem = 0;        // dynamic shared memory per CTA, bytes
  bool dependent = false;      // programmatic dependent launch (sm_90+ only)
  bool cooperative = false;    // every CTA resident at once, or the launch fails (CTAs may wait for each other)
};

// The launch, returning the runtime's own error code (callers that handle one of them).
template <class... Params, class... Args>
cudaError_t launch_kernel_raw(void (*kernel)(Params...), const LaunchShape& shape, cudaStream_t stream,
                              Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = shape.grid;
  config.blockDim = shape.block;
  config.dynamicSmemBytes = shape.smem;
  config.stream = stream;
  cudaLaunchAttribute attributes[3]{};
  unsigned n = 0;
  if (shape.cluster > 1) {
    attributes[n].id = cudaLaunchAttributeClusterDimension;
    attributes[n].val.clusterDim.x = shape.cluster;
    attributes[n].val.clusterDim.y = 1;
    attributes[n].val.clusterDim.z = 1;
    ++n;
  }
  if (shape.dependent) {
    attributes[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  if (shape.cooperative) {
    attributes[n].id = cudaLaunchAttributeCooperative;
    attributes[n].val.cooperative = 1;
    ++n;
  }
  config.attrs = attributes;
  config.numAttrs = n;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

template <class... Params, class... Args>
Status launch_kernel(void (*kernel)(Params...), const LaunchShape& shape, cudaStream_t stream, Args&&... args) {
  FUSEKIT_CUDA_TRY(launch_kernel_raw(kernel, shape, stream, std::forward<Args>(args)...));
  return {};
}

}  // namespace fusekit
