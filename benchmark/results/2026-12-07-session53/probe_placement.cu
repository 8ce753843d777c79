// Diagnostic (not part of the library): does a GEMM's time depend on where its buffers sit?
// The benchmark's fused and bare runs of out_proj and fc2 at 925 tokens fell into a fast and a
// slow mode (10-30% apart) from one benchmark to the next, each steady within its run, while
// cuBLASLt stayed within 0.5% (2026-12-07-session53, call 1). Here each placement is a fresh set of
// cudaMallocs (earlier ones kept, so new physical pages), then the same buffers shifted by 1 MiB
// (virtual offsets inside the same pages groups); every variant's samples interleaved.
// Build (headers only):
//   nvcc -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 -I include \
//        -o probe_placement carry/probe53/probe_placement.cu -lcuda -lcublasLt
#include <fusekit/gemm/linear.hpp>
#include "../../test/gemm/cublaslt_gemm.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace fusekit;
using namespace fusekit::gemm;
using T = bf16_t;
using Fused = ResidualEpilogue<T, T>;
using Bare = LinearEpilogue<T, T>;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define ST(x) do { Status s = (x); if (!s.ok()) { std::printf("%s: %s\n", #x, s.message().c_str()); std::exit(1); } } while (0)

static void fill(T* d, std::size_t count, unsigned seed) {
  std::vector<unsigned short> h(count);
  unsigned x = seed;
  for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
  CK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  const int placements = argc > 1 ? std::atoi(argv[1]) : 6;
  const std::int64_t m = 925, n = 5376, gate_rows = 3, shift = 1 << 20;
  DeviceInfo dev; ST(current_device(dev));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (std::int64_t k : {7168, 14336}) {
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
    for (int p = 0; p < placements; ++p) {
      char *a0, *w0, *y0, *res0, *gate0; std::int32_t* idx;  // never freed: the next placement gets new pages
      CK(cudaMalloc(&a0, m * k * 2 + shift)); CK(cudaMalloc(&w0, n * k * 2 + shift)); CK(cudaMalloc(&y0, m * n * 2 + shift));
      CK(cudaMalloc(&res0, m * n * 2 + shift)); CK(cudaMalloc(&gate0, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
      T* gate = reinterpret_cast<T*>(gate0);
      fill(gate, gate_rows * n, 5);
      { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
      for (int shifted = 0; shifted < 2; ++shifted) {
        const std::int64_t off = shifted ? shift : 0;
        T* a = reinterpret_cast<T*>(a0 + off); T* w = reinterpret_cast<T*>(w0 + off);
        T* y = reinterpret_cast<T*>(y0 + off); T* res = reinterpret_cast<T*>(res0 + off);
        fill(w, n * k, 12345); fill(a, m * k, 777); fill(res, m * n, 99);
        GemmOperands<T> op{a, w, m, n, k, k, k};
        Fused::Params pf({nullptr}, {Activation::identity}, {y, n, gate, n, idx, gate_rows}, {y, n});
        Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
        using V = std::pair<std::string, std::function<void()>>;
        std::vector<V> vs = {
          {"fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
          {"bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
          {"cublaslt", [&] { lt.run(a, w, y); }},
        };
        const int calls = 20, samples = 15;
        std::vector<std::vector<float>> us(vs.size());
        for (auto& v : vs) { for (int i = 0; i < 3; ++i) v.second(); }
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < samples; ++s)
          for (std::size_t j = 0; j < vs.size(); ++j) {
            CK(cudaEventRecord(e0));
            for (int i = 0; i < calls; ++i) vs[j].second();
            CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            us[j].push_back(ms * 1000 / calls);
          }
        std::printf("k=%5lld placement %d%s w=%p a=%p ", (long long)k, p, shifted ? "+1MiB" : "     ", (void*)w, (void*)a);
        for (std::size_t j = 0; j < vs.size(); ++j) {
          std::sort(us[j].begin(), us[j].end());
          std::printf(" %s %7.2f (%7.2f-%7.2f)", vs[j].first.c_str(), us[j][samples / 2], us[j][0], us[j][samples - 1]);
        }
        std::printf("\n");
      }
    }
  }
  return 0;
}
