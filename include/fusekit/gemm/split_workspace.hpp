// fusekit/gemm/split_workspace.hpp: the global memory split tiles meet in (split_k.hpp), held by
// the library per device and stream, so the entry points keep their signatures.
//
// Why per stream: two calls that run at once must not share arrival counters or partials, and
// calls on one stream never run at once. A CUDA graph captured from a stream keeps using that
// stream's buffers, so they are never freed (a larger need allocates larger ones and keeps the
// old); replays of graphs captured from one stream must not overlap each other or calls on that
// stream. Allocation during a capture switches this thread to relaxed capture mode for the
// cudaMalloc (it is not a stream operation); the counters are zeroed by a memset on the stream,
// which a capture records and each replay repeats, harmlessly (the kernel leaves them at 0).
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

namespace fusekit::gemm {

struct SplitBuffers {
  float* partials = nullptr;
  unsigned* arrivals = nullptr;
};

namespace detail {

inline Status allocate_uncaptured(void** p, std::size_t bytes) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  FUSEKIT_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
  const cudaError_t e = cudaMalloc(p, bytes);
  FUSEKIT_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
  if (e != cudaSuccess) return Status::cuda(e, "cudaMalloc (split-K workspace)");
  return {};
}

}  // namespace detail

// Buffers of at least `partial_floats` floats and `counters` zeroed counters for calls on `stream`
// of device `device` (the current one).
inline Status split_workspace(int device, cudaStream_t stream, std::size_t partial_floats, std::size_t counters,
                              SplitBuffers& out) {
  struct Entry {
    SplitBuffers buffers;
    std::size_t floats = 0, counters = 0;
  };
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, Entry> entries;
  std::lock_guard<std::mutex> lock(mutex);
  Entry& e = entries[{device, stream}];
  if (e.floats < partial_floats || e.counters < counters) {
    Entry grown;
    grown.floats = partial_floats > 2 * e.floats ? partial_floats : 2 * e.floats;
    grown.counters = counters > 2 * e.counters ? counters : 2 * e.counters;
    void* p = nullptr;
    FUSEKIT_TRY(detail::allocate_uncaptured(&p, grown.floats * sizeof(float)));
    grown.buffers.partials = static_cast<float*>(p);
    FUSEKIT_TRY(detail::allocate_uncaptured(&p, grown.counters * sizeof(unsigned)));
    grown.buffers.arrivals = static_cast<unsigned*>(p);
    FUSEKIT_CUDA_TRY(cudaMemsetAsync(grown.buffers.arrivals, 0, grown.counters * sizeof(unsigned), stream));
    e = grown;  // the old buffers stay allocated: a captured graph may still use them
  }
  out = e.buffers;
  return {};
}

}  // namespace fusekit::gemm
