// What a copy of the same bytes reaches at the issue #2 sizes, timed the way the benchmark times
// gpu_throughput (a CUDA graph of back-to-back calls rotating over enough buffers to leave L2 cold),
// as a share of the 1 GiB cudaMemcpy ceiling measured in the same run. Three copies:
//   memcpy   cudaMemcpyAsync device to device (the benchmark's size-matched "copy" case);
//   oneshot  16-byte vectors, two a thread, one CTA of 256 threads a 8 KB tile (the row kernels' shape);
//   pdl      oneshot launched as a programmatic dependent of the call before it (the row kernels'
//            launch): its CTAs start while the previous call drains, and wait for it before reading.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -o copy_probe copy_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 2;
constexpr size_t kTileBytes = size_t(kThreads) * kVectorsPerThread * 16;

template <bool kDependent>
__global__ void __launch_bounds__(kThreads) copy_tiles(const uint4* __restrict__ in, uint4* __restrict__ out, size_t vectors) {
  if constexpr (kDependent) asm volatile("griddepcontrol.wait;" ::: "memory");
  const size_t base = size_t(blockIdx.x) * kThreads * kVectorsPerThread + threadIdx.x;
  uint4 v[kVectorsPerThread];
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const size_t k = base + size_t(i) * kThreads;
    if (k < vectors) v[i] = in[k];
  }
  if constexpr (kDependent) asm volatile("griddepcontrol.launch_dependents;");
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const size_t k = base + size_t(i) * kThreads;
    if (k < vectors) out[k] = v[i];
  }
}

enum class Copy { memcpy, oneshot, pdl };
const char* name(Copy c) { return c == Copy::memcpy ? "memcpy" : c == Copy::oneshot ? "oneshot" : "pdl"; }

void launch(Copy c, const void* in, void* out, size_t bytes, cudaStream_t s) {
  if (c == Copy::memcpy) {
    CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s));
    return;
  }
  const size_t vectors = bytes / 16;  // every size below is a multiple of 16 bytes
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned((bytes + kTileBytes - 1) / kTileBytes));
  cfg.blockDim = dim3(kThreads);
  cfg.stream = s;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  const auto* src = static_cast<const uint4*>(in);
  auto* dst = static_cast<uint4*>(out);
  if (c == Copy::pdl) {
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, copy_tiles<true>, src, dst, vectors));
  } else {
    CHECK(cudaLaunchKernelEx(&cfg, copy_tiles<false>, src, dst, vectors));
  }
}

// Median us a call over `samples` replays of a graph of `calls` calls rotating over `sets` buffers.
double time_calls(Copy c, char* in, char* out, size_t bytes, int sets, cudaStream_t s) {
  const int calls = std::max(40, sets);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(c, in + size_t(i % sets) * bytes, out + size_t(i % sets) * bytes, bytes, s);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaGraphLaunch(exec, s));  // warm-up
  std::vector<double> us;
  for (int k = 0; k < 9; ++k) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    us.push_back(1e3 * ms / calls);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t pool = size_t(1) << 31;  // 2 GiB in, 2 GiB out
  char *in, *out;
  CHECK(cudaMalloc(&in, pool));
  CHECK(cudaMalloc(&out, pool));
  CHECK(cudaMemset(in, 0x5a, pool));
  // The ceiling as the harness measures it: 1 GiB copied, bytes read + written.
  const size_t gib = size_t(1) << 30;
  const double ceiling_us = time_calls(Copy::memcpy, in, out, gib, 1, s);
  const double ceiling = 2.0 * gib / ceiling_us / 1e3;
  std::printf("%s, %d SMs, L2 %d MB; copy ceiling (1 GiB memcpy) %.0f GB/s\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, ceiling);
  struct Size {
    const char* label;
    size_t bytes;  // one way
  };
  const Size sizes[] = {
      {"bf16 8x262144", 8ull * 262144 * 2},     {"f32 8x262144", 8ull * 262144 * 4},
      {"bf16 8M (8192x1024)", 8ull << 21},     {"f32 8M (8192x1024)", 8ull << 22},
      {"bf16 32x262144 = 8M", 32ull * 262144 * 2}, {"bf16 4096x5376 (H3)", 4096ull * 5376 * 2},
      {"bf16 925x5376 (H3)", 925ull * 5376 * 2}, {"bf16 64M", 64ull << 21},
  };
  std::printf("%-22s %10s %6s | %-8s %9s %8s %7s\n", "size (one way)", "MB", "sets", "copy", "us", "GB/s", "ceiling");
  for (const Size& z : sizes) {
    const int sets = int(std::clamp(std::ceil(2.0 * prop.l2CacheSize / (2.0 * z.bytes)), 1.0, 64.0));
    for (Copy c : {Copy::memcpy, Copy::oneshot, Copy::pdl}) {
      const double us = time_calls(c, in, out, z.bytes, sets, s);
      const double gbps = 2.0 * z.bytes / us / 1e3;
      std::printf("%-22s %10.2f %6d | %-8s %9.2f %8.0f %6.1f%%\n", z.label, z.bytes / 1e6, sets, name(c), us, gbps,
                  100 * gbps / ceiling);
    }
  }
  // The copies wrote what they read (the last call of each size covers [0, bytes) of some set).
  std::vector<unsigned char> h(4096);
  CHECK(cudaMemcpy(h.data(), out, h.size(), cudaMemcpyDeviceToHost));
  for (unsigned char v : h)
    if (v != 0x5a) return std::puts("copy check FAILED"), 1;
  std::puts("copy check ok");
  return 0;
}
