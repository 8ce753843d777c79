// Timing of two implementations of one function in the same run: each is captured once as a
// CUDA graph of `calls` back-to-back calls; the graphs are then replayed alternately, each
// replay bracketed by CUDA events, and the median replay time / calls is the time per call.
// Graph replay removes host launch overhead from both sides alike (pure GPU time, as the
// torch figures in shared/docs/targets.md were taken).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusekit::layer_report {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

using Launch = std::function<void(cudaStream_t)>;

class CapturedCalls {
 public:
  CapturedCalls(const Launch& launch, int calls, cudaStream_t stream) {
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
      for (int i = 0; i < calls; ++i) launch(stream);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      cudaGetLastError();
      throw;
    }
    cuda_check(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
    cuda_check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }
  CapturedCalls(const CapturedCalls&) = delete;
  CapturedCalls& operator=(const CapturedCalls&) = delete;
  ~CapturedCalls() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  void replay(cudaStream_t stream) const { cuda_check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

struct PairTiming {
  double first_ms = 0, second_ms = 0;  // median per call
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline PairTiming time_pair(const Launch& first, const Launch& second, int calls, int replays, cudaStream_t stream) {
  const CapturedCalls a(first, calls, stream), b(second, calls, stream);
  cudaEvent_t start = nullptr, stop = nullptr;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  auto timed = [&](const CapturedCalls& g) {
    cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
    g.replay(stream);
    cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return double(ms) / calls;
  };
  std::vector<double> ta, tb;
  try {
    timed(a);  // warm-up: first replays upload the graphs
    timed(b);
    for (int r = 0; r < replays; ++r) {
      ta.push_back(timed(a));
      tb.push_back(timed(b));
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {median(ta), median(tb)};
}

}  // namespace fusekit::layer_report
