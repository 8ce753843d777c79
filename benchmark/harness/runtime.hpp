// benchmark/harness/runtime.hpp: process-wide state shared by the harness's main and its runner.
// Internal to the harness.
#pragma once

#include "harness.hpp"

#include <cuda_runtime_api.h>

#include <memory>

namespace fusekit::bench::detail {

struct Options {
  int samples = 15;               // timed samples per run (Google Benchmark iterations)
  double wait_us = 50;            // device-side wait queued before a gpu_latency launch
  double sample_target_ms = 2;    // throughput modes: calls per sample fill about this much time
  int max_calls_per_sample = 4096;
};

class L2Flusher;

struct Runtime {
  Options options;
  cudaStream_t stream = nullptr;
  double l2_bytes = 0;
  Ceilings ceilings;
  std::unique_ptr<L2Flusher> flusher;
};
Runtime& runtime();

// Registers every case collected by register_case with Google Benchmark (call once, from main,
// after the options are known); returns the number of runs registered.
int register_all_with_google_benchmark();

// Releases the instance of the last case run (before the CUDA context goes away).
void release_current_case();

}  // namespace fusekit::bench::detail
