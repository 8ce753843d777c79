// fusekit/gemm/split_workspace.hpp: the global memory split tiles meet in (split_k.hpp), held by
// the library per device and stream, so the entry points keep their signatures.
//
// Why per stream: two calls that run at once must not share arrival counters or partials, and
// calls on one stream never run at once. The handles that name a different stream in each host
// thread (cudaStreamPerThread, and nullptr where this file is compiled with per-thread default
// streams) are kept per thread too; a thread's workspace outlives it (as every other: see below).
// A CUDA graph captured from a stream keeps using that stream's buffers, so they are never freed
// (a larger need allocates larger ones and keeps the old); replays of graphs captured from one
// stream must not overlap each other or calls on that stream, and a stream destroyed while its
// calls still run must not have its handle reused for new calls before they end. Allocation
// switches this thread to relaxed capture mode (cudaMalloc is not a stream operation) and zeroes
// the counters there, synchronously on a stream of its own: a memset recorded into a capture
// would zero them only for that graph's replays, not for calls outside it. Kernels leave them 0.
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace fusekit::gemm {

struct SplitBuffers {
  float* partials = nullptr;
  unsigned* arrivals = nullptr;
};

namespace detail {

// Runs f() with this thread in relaxed capture mode, so that a capture on any stream lets through
// the allocations and the side stream below (neither is an operation of the captured stream).
template <class F> Status uncaptured(F&& f) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  FUSEKIT_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
  const Status s = f();
  FUSEKIT_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
  return s;
}

inline Status allocate_zeroed(void** p, std::size_t bytes, bool zero) {
  return uncaptured([&]() -> Status {
    if (const cudaError_t e = cudaMalloc(p, bytes); e != cudaSuccess)
      return Status::cuda(e, "cudaMalloc (split-K workspace)");
    if (!zero) return {};
    cudaStream_t side = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMemsetAsync(*p, 0, bytes, side);
    if (e == cudaSuccess) e = cudaStreamSynchronize(side);
    if (side != nullptr) cudaStreamDestroy(side);
    if (e != cudaSuccess) return Status::cuda(e, "zeroing the split-K counters");
    return {};
  });
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
  static std::map<std::tuple<int, cudaStream_t, std::thread::id>, Entry> entries;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM  // nvcc --default-stream per-thread: nullptr is per thread
  const bool per_thread = stream == nullptr || stream == cudaStreamPerThread;
#else  // nullptr is the one legacy stream: a workspace for every thread would only leak
  const bool per_thread = stream == cudaStreamPerThread;
#endif
  std::lock_guard<std::mutex> lock(mutex);
  Entry& e = entries[{device, stream, per_thread ? std::this_thread::get_id() : std::thread::id{}}];
  if (e.floats < partial_floats || e.counters < counters) {
    Entry grown;
    grown.floats = partial_floats > 2 * e.floats ? partial_floats : 2 * e.floats;
    grown.counters = counters > 2 * e.counters ? counters : 2 * e.counters;
    void* p = nullptr;
    FUSEKIT_TRY(detail::allocate_zeroed(&p, grown.floats * sizeof(float), false));
    grown.buffers.partials = static_cast<float*>(p);
    if (const Status s = detail::allocate_zeroed(&p, grown.counters * sizeof(unsigned), true); !s.ok()) {
      cudaFree(grown.buffers.partials);
      return s;
    }
    grown.buffers.arrivals = static_cast<unsigned*>(p);
    e = grown;  // the old buffers stay allocated: a captured graph may still use them
  }
  out = e.buffers;
  return {};
}

}  // namespace fusekit::gemm
