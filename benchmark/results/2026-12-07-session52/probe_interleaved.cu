// Diagnostic (not part of the library): out_proj and fc2 at 925 tokens on 256 x 160 swapped tiles
// with K in one segment (the upper bound of a wide-tile plan), against the shipped 128 x 160 tiles
// (3 K segments, and forced to 1), cuBLASLt bare, and cuBLASLt + the layer report's unfused gated
// residual (issue #7's baseline). Every variant's samples interleaved (medians), and the shipped kernel
// without each CTA's last tile's epilogue (FusedSkip, with skip_last.patch applied to the headers).
// Build (headers only, about 2 minutes):
//   nvcc -O3 -DNDEBUG -DFUSEKIT_PROBE_SKIP_LAST --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 \
//        -I include -o probe_interleaved probe_interleaved.cu -lcuda -lcublasLt
#ifdef FUSEKIT_PROBE_SKIP_LAST
#include <fusekit/gemm/linear.hpp>
#else
#include <fusekit/gemm/instances.hpp>
#endif
#include <fusekit/gemm/kernel_sm90_swapped.hpp>
#include "../../test/gemm/cublaslt_gemm.hpp"
#include "../../examples/layer_report/unfused_epilogue.cuh"
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
// The same epilogue, marked: the patched 160-token kernel skips each CTA's last tile's epilogue for it.
struct FusedSkip : Fused { static constexpr bool kProbeSkipLast = true; };
template <int St, int Ch> using Wide = WideSwappedMainLoopSm90<T, 160, St, Ch>;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define ST(x) do { Status s = (x); if (!s.ok()) { std::printf("%s: %s\n", #x, s.message().c_str()); std::exit(1); } } while (0)

static void fill(T* d, std::size_t count, unsigned seed) {
  std::vector<unsigned short> h(count);
  unsigned x = seed;
  for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
  CK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  const int long_calls = argc > 1 ? std::atoi(argv[1]) : 0;
  const std::int64_t m = 925, n = 5376, gate_rows = 3;
  DeviceInfo dev; ST(current_device(dev));
  for (std::int64_t k : {7168, 14336}) {
    T *a, *w, *y, *y2, *res, *gate; std::int32_t* idx;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2)); CK(cudaMalloc(&y2, m * n * 2));
    CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
    fill(w, n * k, 12345); fill(a, m * k, 777); fill(res, m * n, 99); fill(gate, gate_rows * n, 5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    GemmOperands<T> op{a, w, m, n, k, k, k};
    Fused::Params pf({nullptr}, {Activation::identity}, {y, n, gate, n, idx, gate_rows}, {y, n});
    Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
    const std::int64_t n_tiles = n / 128;
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
    using V = std::pair<std::string, std::function<void()>>;
    std::vector<V> vs = {
      {"auto fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"auto fused skiplast", [&] { ST((launch_gemm<T, FusedSkip>(op, pf, dev, nullptr))); }},
      {"auto bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
      {"s1 160 fused", [&] { ST((fusekit::gemm::detail::launch_sm90_swapped<T, HopperSwappedMainLoop<T>, Fused>(op, pf, n_tiles, SplitPlan{}, dev, nullptr))); }},
      {"s1 160 bare", [&] { ST((fusekit::gemm::detail::launch_sm90_swapped<T, HopperSwappedMainLoop<T>, Bare>(op, pb, n_tiles, SplitPlan{}, dev, nullptr))); }},
      {"wide4x16 fused", [&] { ST((fusekit::gemm::detail::launch_sm90_wide_swapped<T, Wide<4, 16>, Fused>(op, pf, n_tiles, dev, nullptr))); }},
      {"wide4x16 bare", [&] { ST((fusekit::gemm::detail::launch_sm90_wide_swapped<T, Wide<4, 16>, Bare>(op, pb, n_tiles, dev, nullptr))); }},
      {"wide3x40 fused", [&] { ST((fusekit::gemm::detail::launch_sm90_wide_swapped<T, Wide<3, 40>, Fused>(op, pf, n_tiles, dev, nullptr))); }},
      {"wide3x40 bare", [&] { ST((fusekit::gemm::detail::launch_sm90_wide_swapped<T, Wide<3, 40>, Bare>(op, pb, n_tiles, dev, nullptr))); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
      {"cublaslt+epi", [&] { lt.run(a, w, y2); layer_report::kernels::gated_residual<<<264, 256>>>(y2, gate, idx, res, m, n); }},
    };
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    // Interleaved: sample s of every variant before sample s + 1 of any, so drift (clock, power)
    // falls on all alike; the median of `samples` samples of `calls` calls each.
    const int calls = long_calls > 0 ? long_calls : 20, samples = 15;
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
    for (std::size_t j = 0; j < vs.size(); ++j) {
      std::sort(us[j].begin(), us[j].end());
      std::printf("k=%lld %-20s median %8.2f  min %8.2f  max %8.2f us/call (%d x %d calls)\n", (long long)k,
                  vs[j].first.c_str(), us[j][samples / 2], us[j][0], us[j][samples - 1], samples, calls);
    }
    cudaFree(a); cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(res); cudaFree(gate); cudaFree(idx);
  }
  return 0;
}
