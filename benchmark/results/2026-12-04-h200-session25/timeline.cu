// Timeline of the swapped kernel's consumers (clock64 stamps), session 25 experiment.
#include "fusekit/gemm/linear.hpp"
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>
#include <string>
using namespace fusekit;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
static void* rnd(std::int64_t n, float scale, std::mt19937& g) {
  std::vector<__nv_bfloat16> h(n);
  std::normal_distribution<float> d(0.f, scale);
  for (auto& x : h) x = __float2bfloat16(d(g));
  void* p; CK(cudaMalloc(&p, n * 2)); CK(cudaMemcpy(p, h.data(), n * 2, cudaMemcpyHostToDevice)); return p;
}
int main(int argc, char** argv) {
  std::mt19937 g(1);
  struct Case { const char* name; std::int64_t m, n, k; bool fused; };
  std::vector<Case> cases = {{"out_proj925_bare", 925, 5376, 7168, false}, {"out_proj925_fused", 925, 5376, 7168, true},
                             {"qkv925_bare", 925, 21504, 5376, false}, {"fc2_925_bare", 925, 5376, 14336, false}};
  unsigned long long* tl; CK(cudaMalloc(&tl, 132 * 2 * 64 * 8));
  for (const Case& c : cases) {
    void* a = rnd(c.m * c.k, 1.f, g); void* w = rnd(c.n * c.k, 0.01f, g); void* r = rnd(c.m * c.n, 1.f, g);
    void* gate = rnd(6 * c.n, 0.3f, g); void* out; CK(cudaMalloc(&out, c.m * c.n * 2));
    std::vector<int> idx(c.m); for (auto& v : idx) v = g() % 6; int* didx; CK(cudaMalloc(&didx, c.m * 4));
    CK(cudaMemcpy(didx, idx.data(), c.m * 4, cudaMemcpyHostToDevice));
    ConstRows A{a, DType::bf16, c.m, c.k, 0}, W{w, DType::bf16, c.n, c.k, 0}, R{r, DType::bf16, c.m, c.n, 0};
    Rows O{out, DType::bf16, c.m, c.n, 0};
    gemm::ResidualOptions opt; opt.gate = ConstRows{gate, DType::bf16, 6, c.n, 0}; opt.idx = didx;
    auto run = [&] { Status st = c.fused ? gemm::linear_residual(A, W, R, O, opt, nullptr) : gemm::linear(A, W, O, {}, nullptr);
                     if (!st.ok()) { std::printf("%s\n", st.to_string().c_str()); std::exit(1); } };
    unsigned long long* null = nullptr;
    CK(cudaMemcpyToSymbol(fusekit_timeline, &null, sizeof(null)));
    for (int i = 0; i < 5; ++i) run();
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ts;
    for (int i = 0; i < 20; ++i) { CK(cudaEventRecord(e0)); run(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms * 1000); }
    std::sort(ts.begin(), ts.end());
    CK(cudaMemset(tl, 0, 132 * 2 * 64 * 8));
    CK(cudaMemcpyToSymbol(fusekit_timeline, &tl, sizeof(tl)));
    run(); CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> h(132 * 2 * 64);
    CK(cudaMemcpy(h.data(), tl, h.size() * 8, cudaMemcpyDeviceToHost));
    std::printf("== %s: median %.1f us (events, no timeline)\n", c.name, ts[ts.size() / 2]);
    // per CTA, consumer 0 and 1: for each tile: segs (cycles), epilogue (cycles), gap before the tile
    double sum_main = 0, sum_epi = 0, sum_gap = 0, sum_total = 0; int ntiles = 0, nctas = 0; double seg_first = 0; int nseg_first = 0;
    for (int b = 0; b < 132; ++b) for (int cw = 0; cw < 2; ++cw) {
      const unsigned long long* e = &h[(b * 2 + cw) * 64];
      if (e[63] == 0) continue;
      ++nctas;
      unsigned long long prev_end = e[63], last = e[63];
      if (b < 3) std::printf("cta %d cw %d:", b, cw);
      for (int j = 0; j < 7; ++j) {
        const unsigned long long* t = e + j * 8;
        if (t[0] == 0) break;
        unsigned long long seg_end = 0; for (int q = 1; q <= 3; ++q) if (t[q]) seg_end = t[q];
        unsigned long long epi_end = 0; for (int q = 4; q <= 7; ++q) if (t[q]) epi_end = t[q];
        sum_gap += double(t[0] - prev_end); sum_main += double(seg_end - t[0]); sum_epi += double(epi_end - seg_end); ++ntiles;
        if (t[1]) { seg_first += double(t[1] - t[0]); ++nseg_first; }
        if (b < 3) { std::printf(" [tile%d gap %llu segs", j, t[0] - prev_end); unsigned long long p = t[0]; for (int q = 1; q <= 3; ++q) if (t[q]) { std::printf(" %llu", t[q] - p); p = t[q]; } std::printf(" epi"); for (int q = 4; q <= 7; ++q) if (t[q]) { std::printf(" %llu", t[q] - p); p = t[q]; } std::printf("]"); }
        prev_end = epi_end; last = epi_end;
      }
      sum_total += double(last - e[63]);
      if (b < 3) std::printf(" total %llu\n", last - e[63]);
    }
    std::printf("mean over %d consumer-CTAs, %d tiles: per tile mainloop %.0f cycles, epilogue %.0f, gap %.0f; per consumer total %.0f; first seg %.0f\n",
                nctas, ntiles, sum_main / ntiles, sum_epi / ntiles, sum_gap / ntiles, sum_total / nctas, seg_first / std::max(1, nseg_first));
    CK(cudaMemcpyToSymbol(fusekit_timeline, &null, sizeof(null)));
    cudaFree(a); cudaFree(w); cudaFree(r); cudaFree(gate); cudaFree(out); cudaFree(didx);
  }
  return 0;
}
