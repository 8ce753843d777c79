// Diagnostic (not part of the library), fifty-fourth session: the 160-token kernel's variants at
// 925 tokens (out_proj, fc2), every sample interleaved: e751806 (HEAD: the last tile's residual
// warmed in L2), + every hand-off tile's residual warmed too (prepared_prefetch_every_tile.patch),
// + the last tile's residual runs loaded in one round (AccTile::spare_registers), both; bare,
// cuBLASLt and cuBLASLt + the unfused gated residual. Markers: probe_markers54.patch.
// Build (headers only, from the repository root, the candidate tree + the markers):
//   nvcc -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 -I include \
//        -o probe54 carry/probe54/probe54.cu -lcuda -lcublasLt
#include <fusekit/gemm/linear.hpp>
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
struct Head : Fused { static constexpr bool kProbeLastOnly = true, kProbeNarrowLast = true; };
struct Every : Fused { static constexpr bool kProbeNarrowLast = true; };
struct Wide : Fused { static constexpr bool kProbeLastOnly = true; };

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define ST(x) do { Status s = (x); if (!s.ok()) { std::printf("%s: %s\n", #x, s.message().c_str()); std::exit(1); } } while (0)

static void fill(T* d, std::size_t count, unsigned seed) {
  std::vector<unsigned short> h(count);
  unsigned x = seed;
  for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
  CK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20, samples = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::int64_t m = 925, n = 5376, gate_rows = 3;
  DeviceInfo dev; ST(current_device(dev));
  for (std::int64_t k : {7168, 14336}) {
    T *a, *w, *y, *y2, *ref, *res, *gate; std::int32_t* idx;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2)); CK(cudaMalloc(&y2, m * n * 2));
    CK(cudaMalloc(&ref, m * n * 2)); CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
    fill(w, n * k, 12345); fill(a, m * k, 777); fill(res, m * n, 99); fill(gate, gate_rows * n, 5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    GemmOperands<T> op{a, w, m, n, k, k, k};
    // Out of place (residual `res`, output y) so every call computes the same bits: each variant's
    // output is compared with the head kernel's.
    Fused::Params pf({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y, n});
    Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
    using V = std::pair<std::string, std::function<void()>>;
    std::vector<V> vs = {
      {"e751806 (head)", [&] { ST((launch_gemm<T, Head>(op, pf, dev, nullptr))); }},
      {"every tile L2", [&] { ST((launch_gemm<T, Every>(op, pf, dev, nullptr))); }},
      {"last tile one round", [&] { ST((launch_gemm<T, Wide>(op, pf, dev, nullptr))); }},
      {"every + one round", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
      {"cublaslt+epi", [&] { lt.run(a, w, y2); layer_report::kernels::gated_residual<<<264, 256>>>(y2, gate, idx, res, m, n); }},
    };
    // Bits: every fused variant against the head kernel's output.
    ST((launch_gemm<T, Head>(op, pf, dev, nullptr))); CK(cudaMemcpy(ref, y, m * n * 2, cudaMemcpyDeviceToDevice));
    std::vector<unsigned short> h_ref(m * n), h_y(m * n);
    CK(cudaMemcpy(h_ref.data(), ref, m * n * 2, cudaMemcpyDeviceToHost));
    for (int j = 1; j < 4; ++j) {
      CK(cudaMemset(y, 0xff, m * n * 2)); vs[j].second(); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h_y.data(), y, m * n * 2, cudaMemcpyDeviceToHost));
      std::printf("k=%lld %-24s bits %s\n", (long long)k, vs[j].first.c_str(), h_y == h_ref ? "equal to head" : "DIFFER");
    }
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
      std::printf("k=%lld %-24s median %8.2f  min %8.2f  max %8.2f us/call (%d x %d calls)\n", (long long)k,
                  vs[j].first.c_str(), us[j][samples / 2], us[j][0], us[j][samples - 1], samples, calls);
    }
    cudaFree(a); cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(ref); cudaFree(res); cudaFree(gate); cudaFree(idx);
  }
  return 0;
}
