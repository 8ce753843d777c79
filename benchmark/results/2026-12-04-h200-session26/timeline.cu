// Session 26 timeline driver: runs the 925-token swapped calls with the instrumented kernel, dumps raw stamps.
#include "fusekit/gemm/linear.hpp"
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
using namespace fusekit;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
static void* rnd(std::int64_t n, float scale, std::mt19937& g) {
  std::vector<__nv_bfloat16> h(n);
  std::normal_distribution<float> d(0.f, scale);
  for (auto& x : h) x = __float2bfloat16(d(g));
  void* p; CK(cudaMalloc(&p, n * 2)); CK(cudaMemcpy(p, h.data(), n * 2, cudaMemcpyHostToDevice)); return p;
}
int main(int argc, char** argv) {
  const char* out_dir = argc > 1 ? argv[1] : ".";
  std::mt19937 g(1);
  struct Case { const char* name; std::int64_t m, n, k; bool fused; };
  std::vector<Case> cases = {{"out_proj925_bare", 925, 5376, 7168, false}, {"out_proj925_fused", 925, 5376, 7168, true},
                             {"fc2_925_bare", 925, 5376, 14336, false}, {"qkv925_bare", 925, 21504, 5376, false}};
  const size_t words = 132 * 4 * 64;
  unsigned long long* tl; CK(cudaMalloc(&tl, words * 8));
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
    for (int i = 0; i < 30; ++i) { CK(cudaEventRecord(e0)); run(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms * 1000); }
    std::sort(ts.begin(), ts.end());
    std::printf("== %s: median %.1f us (events, no timeline)\n", c.name, ts[ts.size() / 2]);
    CK(cudaMemcpyToSymbol(fusekit_timeline, &tl, sizeof(tl)));
    for (int rep = 0; rep < 4; ++rep) {
      CK(cudaMemset(tl, 0, words * 8));
      run(); run();  // the second call's stamps overwrite the first's (back to back, as in the bench)
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> h(words);
      CK(cudaMemcpy(h.data(), tl, words * 8, cudaMemcpyDeviceToHost));
      std::string f = std::string(out_dir) + "/" + c.name + "_" + std::to_string(rep) + ".bin";
      FILE* fp = std::fopen(f.c_str(), "wb"); std::fwrite(h.data(), 8, words, fp); std::fclose(fp);
    }
    CK(cudaMemcpyToSymbol(fusekit_timeline, &null, sizeof(null)));
  }
  std::printf("done\n");
}
