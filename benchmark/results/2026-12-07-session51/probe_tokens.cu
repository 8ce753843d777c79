// Diagnostic (not part of the library): few-row long-K calls over M, half-swapped vs narrow.
#include <fusekit/gemm/linear.hpp>
#include <cstdio>
#include <vector>
#include <cstring>
using namespace fusekit;
using namespace fusekit::gemm;
using Epi = LinearEpilogue<bf16_t, bf16_t>;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main() {
  const std::int64_t n = 5376, kmax = 14336;
  bf16_t *a, *w, *y;
  CK(cudaMalloc(&a, 72 * kmax * 2)); CK(cudaMalloc(&w, n * kmax * 2)); CK(cudaMalloc(&y, 72 * n * 2));
  { std::vector<unsigned short> h(n * kmax); unsigned x = 12345; for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
    CK(cudaMemcpy(w, h.data(), n * kmax * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(a, h.data() + 1000, 72 * kmax * 2, cudaMemcpyHostToDevice)); }
  DeviceInfo dev; if (!current_device(dev).ok()) return 1;
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (std::int64_t k : {7168, 14336})
    for (std::int64_t m : {1, 8, 37, 64, 70}) {
      GemmOperands<bf16_t> op{a, w, m, n, k, k, k};
      Epi::Params p({nullptr}, {Activation::identity}, {y, n});
      std::vector<unsigned char> bits[2];
      float us[2];
      for (int v = 0; v < 2; ++v) {
        segment_tiles() = v == 0 ? SegmentTiles::narrow : SegmentTiles::automatic;
        CK(cudaMemset(y, 0xff, 72 * n * 2));
        if (!launch_gemm<bf16_t, Epi>(op, p, dev, nullptr).ok()) { std::printf("launch failed\n"); return 1; }
        CK(cudaDeviceSynchronize());
        bits[v].resize(m * n * 2);
        CK(cudaMemcpy(bits[v].data(), y, m * n * 2, cudaMemcpyDeviceToHost));
        CK(cudaEventRecord(e0));
        for (int i = 0; i < 50; ++i) (void)launch_gemm<bf16_t, Epi>(op, p, dev, nullptr);
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        us[v] = ms * 1000 / 50;
      }
      CK(cudaGetLastError());
      std::printf("k=%5lld m=%2lld narrow %.2f us, automatic (half-swapped) %.2f us, ratio %.3f, same bits %d\n", (long long)k,
                  (long long)m, us[0], us[1], us[0] / us[1], int(bits[0] == bits[1]));
    }
  return 0;
}
