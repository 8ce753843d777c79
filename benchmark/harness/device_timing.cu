#include "device_timing.hpp"

#include <cuda_bf16.h>

#include <cstdint>

namespace fusekit::bench::detail {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

EventPair::EventPair() {
  FUSEKIT_BENCH_CUDA(cudaEventCreate(&start_));
  FUSEKIT_BENCH_CUDA(cudaEventCreate(&stop_));
}
EventPair::~EventPair() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}
void EventPair::start(cudaStream_t s) { FUSEKIT_BENCH_CUDA(cudaEventRecord(start_, s)); }
void EventPair::stop(cudaStream_t s) { FUSEKIT_BENCH_CUDA(cudaEventRecord(stop_, s)); }
double EventPair::seconds() const {
  FUSEKIT_BENCH_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  FUSEKIT_BENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms * 1e-3;
}

namespace {

__global__ void read_all(const int4* data, std::size_t count, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5eed1e55) *sink = acc;  // the buffer is zero: never taken, but keeps the loads
}

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) {
  }
}

__global__ void fill_bf16(__nv_bfloat16* out, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ seed;  // integer hash
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    out[i] = __float2bfloat16(static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}

}  // namespace

L2Flusher::L2Flusher(std::size_t l2_bytes) : bytes_((3 * l2_bytes + 15) / 16 * 16) {
  FUSEKIT_BENCH_CUDA(cudaMalloc(&buffer_, bytes_));
  FUSEKIT_BENCH_CUDA(cudaMalloc(&sink_, sizeof(int)));
  FUSEKIT_BENCH_CUDA(cudaMemset(buffer_, 0, bytes_));
}
L2Flusher::~L2Flusher() {
  cudaFree(buffer_);
  cudaFree(sink_);
}
void L2Flusher::flush(cudaStream_t s) {
  read_all<<<1024, 256, 0, s>>>(static_cast<const int4*>(buffer_), bytes_ / 16, sink_);
  FUSEKIT_BENCH_CUDA(cudaGetLastError());
}

void enqueue_wait(cudaStream_t s, double microseconds) {
  spin<<<1, 1, 0, s>>>(static_cast<std::uint64_t>(microseconds * 1e3));
  FUSEKIT_BENCH_CUDA(cudaGetLastError());
}

void fill_random_bf16(void* data, std::size_t count, unsigned seed, cudaStream_t s) {
  fill_bf16<<<1024, 256, 0, s>>>(static_cast<__nv_bfloat16*>(data), count, seed);
  FUSEKIT_BENCH_CUDA(cudaGetLastError());
}

}  // namespace fusekit::bench::detail
