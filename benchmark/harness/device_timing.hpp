// benchmark/harness/device_timing.hpp: the device-side pieces of the timing modes: checked CUDA
// calls, an event pair, an L2 flush and a queued wait. Internal to the harness.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fusekit::bench::detail {

// Throws std::runtime_error naming the call when `err` is not cudaSuccess.
void check_cuda(cudaError_t err, const char* what);
#define FUSEKIT_BENCH_CUDA(expr) ::fusekit::bench::detail::check_cuda((expr), #expr)

// Two events on one stream; seconds() waits for the second.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s);
  void stop(cudaStream_t s);
  double seconds() const;

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Evicts the previous work's data from L2 by reading a buffer three times the L2 size: reads
// leave clean lines, so the timed call pays no write-back of the flush itself.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t s);

 private:
  void* buffer_ = nullptr;
  int* sink_ = nullptr;
  std::size_t bytes_ = 0;
};

// Enqueues a one-thread kernel that spins for `microseconds` of device time, so that whatever
// the host enqueues next (start event, launch) is already queued when the device reaches it.
void enqueue_wait(cudaStream_t s, double microseconds);

// Fills `count` bf16 values with a deterministic pseudo-random pattern in [-1, 1).
void fill_random_bf16(void* data, std::size_t count, unsigned seed, cudaStream_t s);

}  // namespace fusekit::bench::detail
