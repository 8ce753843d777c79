// Diagnostic (not part of the library): why the multicast few-row kernel is slow.
#include <fusekit/gemm/instances.hpp>
#include <cstdio>
#include <vector>
using namespace fusekit;
using namespace fusekit::gemm;
using Epi = LinearEpilogue<bf16_t, bf16_t>;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main() {
  const std::int64_t m = 70, n = 5376; for (std::int64_t k : {7168, 14336}) {
  bf16_t *a, *w, *y;
  CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2));
  { std::vector<unsigned short> h(n * k); unsigned x = 12345; for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
    CK(cudaMemcpy(w, h.data(), n * k * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(a, h.data() + 1000, m * k * 2, cudaMemcpyHostToDevice)); }
  DeviceInfo dev; if (!current_device(dev).ok()) return 1;
  GemmOperands<bf16_t> op{a, w, m, n, k, k, k};
  Epi::Params p({nullptr}, {Activation::identity}, {y, n});
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  struct V { const char* name; SegmentTiles t; GridOverlap o; };
  for (int rep = 0; rep < 1; ++rep)
  for (V v : {V{"multicast none", SegmentTiles::half_swapped, GridOverlap::none}, V{"multicast prologue", SegmentTiles::half_swapped, GridOverlap::prologue},
              V{"narrow none", SegmentTiles::narrow, GridOverlap::none}, V{"narrow prologue", SegmentTiles::narrow, GridOverlap::prologue}}) {
    segment_tiles() = v.t; grid_overlap() = v.o;
    for (int i = 0; i < 3; ++i) if (!launch_gemm<bf16_t, Epi>(op, p, dev, nullptr).ok()) { std::printf("launch failed\n"); return 1; }
    CK(cudaDeviceSynchronize());
    // back to back
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 50; ++i) (void)launch_gemm<bf16_t, Epi>(op, p, dev, nullptr);
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    // one at a time
    float one = 0;
    for (int i = 0; i < 20; ++i) {
      CK(cudaEventRecord(e0)); (void)launch_gemm<bf16_t, Epi>(op, p, dev, nullptr); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float t; CK(cudaEventElapsedTime(&t, e0, e1)); one += t;
    }
    CK(cudaGetLastError());
    std::printf("k=%lld %-20s back-to-back %.2f us/call, alone %.2f us/call\n", (long long)k, v.name, ms * 1000 / 50, one * 1000 / 20);
  }
  }
  return 0;
}
