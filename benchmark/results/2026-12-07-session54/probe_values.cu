// Diagnostic (not part of the library), fifty-fourth session, prepared, not run: out_proj and fc2 at
// 925 tokens (HEAD's fused and bare kernels, cuBLASLt bare and + the unfused gated residual, every
// sample interleaved) on three kinds of data: the probes' (weights and tokens near +-1/128), the
// layer report's before ba53a0e (weights random bit patterns, |x| < 2, tokens normal), and its
// weight-like checkpoints (weights normal, deviation 0.02; tokens normal). Whether the data moves
// cuBLASLt's time more than fusekit's (the report's baseline ran 99-100 us, the probe's 122-125).
// Build (headers only, from the repository root):
//   nvcc -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 -I include \
//        -o probe_values carry/probe54/probe_values.cu -lcuda -lcublasLt
#include <fusekit/gemm/linear.hpp>
#include "../../test/gemm/cublaslt_gemm.hpp"
#include "../../examples/layer_report/unfused_epilogue.cuh"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <cmath>
#include <random>
#include <vector>

using namespace fusekit;
using namespace fusekit::gemm;
using T = bf16_t;
using Fused = ResidualEpilogue<T, T>;
using Bare = LinearEpilogue<T, T>;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define ST(x) do { Status s = (x); if (!s.ok()) { std::printf("%s: %s\n", #x, s.message().c_str()); std::exit(1); } } while (0)

// kind 0: the probes' values near +-1/128; 1: random bit patterns with the top exponent bit clear
// (the old fixture's weights); 2: normal, deviation `sd`.
static void fill(T* d, std::size_t count, unsigned seed, int kind, double sd) {
  std::vector<unsigned short> h(count);
  if (kind == 0) {
    unsigned x = seed;
    for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
  } else if (kind == 1) {
    std::mt19937_64 rng(seed);
    for (auto& v : h) v = static_cast<unsigned short>(rng() & 0xbfff);
  } else {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> dist(0.f, static_cast<float>(sd));
    for (auto& v : h) { const float f = dist(rng); unsigned u; std::memcpy(&u, &f, 4); v = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }
  }
  CK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20, samples = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::int64_t m = 925, n = 5376, gate_rows = 3;
  DeviceInfo dev; ST(current_device(dev));
  const char* kinds[] = {"probe data", "bit patterns", "weight-like"};
  for (int kind = 0; kind < 3; ++kind)
  for (std::int64_t k : {7168, 14336}) {
    T *a, *w, *y, *y2, *res, *gate; std::int32_t* idx;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2)); CK(cudaMalloc(&y2, m * n * 2));
    CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
    fill(w, n * k, 12345, kind, 0.02); fill(a, m * k, 777, kind == 0 ? 0 : 2, 1.0); fill(res, m * n, 99, kind == 0 ? 0 : 2, 1.0);
    fill(gate, gate_rows * n, 5, kind == 0 ? 0 : 2, 0.5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    GemmOperands<T> op{a, w, m, n, k, k, k};
    // Out of place (residual `res`, output y): every call computes the same output.
    Fused::Params pf({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y, n});
    Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
    using V = std::pair<std::string, std::function<void()>>;
    std::vector<V> vs = {
      {"fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
      {"cublaslt+epi", [&] { lt.run(a, w, y2); layer_report::kernels::gated_residual<<<264, 256>>>(y2, gate, idx, res, m, n); }},
    };
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> us(vs.size());
    for (auto& v : vs) { for (int i = 0; i < 3; ++i) v.second(); }
    CK(cudaDeviceSynchronize());
    for (int s = 0; s < samples; ++s)
      for (std::size_t jj = 0; jj < vs.size(); ++jj) {
        const std::size_t j = (jj + s) % vs.size();  // rotate the order so no variant always follows the same one
        CK(cudaEventRecord(e0));
        for (int i = 0; i < calls; ++i) vs[j].second();
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        us[j].push_back(ms * 1000 / calls);
      }
    for (std::size_t j = 0; j < vs.size(); ++j) {
      std::sort(us[j].begin(), us[j].end());
      std::printf("%-12s k=%lld %-24s median %8.2f  min %8.2f  max %8.2f us/call (%d x %d calls)\n", kinds[kind], (long long)k,
                  vs[j].first.c_str(), us[j][samples / 2], us[j][0], us[j][samples - 1], samples, calls);
    }
    cudaFree(a); cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(res); cudaFree(gate); cudaFree(idx);
  }
  return 0;
}
