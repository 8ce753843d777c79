// Diagnostic (not part of the library): variants of the multicast few-row kernel.
#include <fusekit/gemm/instances.hpp>
#include <cstdio>
#include <vector>
#include <cstring>
using namespace fusekit;
using namespace fusekit::gemm;
using Epi = LinearEpilogue<bf16_t, bf16_t>;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
static bf16_t *a, *w, *y;
static DeviceInfo dev;
template <class ML> int time_variant(const char* name, std::int64_t m, std::int64_t n, std::int64_t k, int segs, const std::vector<unsigned char>& ref) {
  GemmOperands<bf16_t> op{a, w, m, n, k, k, k};
  Epi::Params p({nullptr}, {Activation::identity}, {y, n});
  KSegments sg; sg.count = segs;
  CK(cudaMemset(y, 0xff, m * n * 2));
  for (int i = 0; i < 3; ++i) if (!gemm::detail::launch_sm90_multicast<bf16_t, ML, Epi>(op, p, (n + 127) / 128, sg, dev, nullptr).ok()) { std::printf("launch failed\n"); return 1; }
  CK(cudaDeviceSynchronize());
  std::vector<unsigned char> out(m * n * 2);
  CK(cudaMemcpy(out.data(), y, out.size(), cudaMemcpyDeviceToHost));
  const bool same = !ref.empty() && std::memcmp(out.data(), ref.data(), out.size()) == 0;
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 50; ++i) (void)gemm::detail::launch_sm90_multicast<bf16_t, ML, Epi>(op, p, (n + 127) / 128, sg, dev, nullptr);
  CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
  float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaGetLastError());
  std::printf("k=%lld %-28s %.2f us/call  same bits as narrow: %d\n", (long long)k, name, ms * 1000 / 50, int(same));
  return 0;
}
int main() {
  const std::int64_t m = 70, n = 5376;
  CK(cudaMalloc(&a, m * 14336 * 2)); CK(cudaMalloc(&w, n * 14336 * 2)); CK(cudaMalloc(&y, m * n * 2));
  std::vector<unsigned short> h(n * 14336);
  unsigned x = 12345; for (auto& v : h) { x = x * 1664525u + 1013904223u; v = 0x3c00 + ((x >> 16) & 0x3ff) - 0x200 + ((x >> 30) << 15); }
  CK(cudaMemcpy(w, h.data(), n * 14336 * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(a, h.data() + 1000, m * 14336 * 2, cudaMemcpyHostToDevice));
  if (!current_device(dev).ok()) return 1;
  grid_overlap() = GridOverlap::none;
  for (std::int64_t k : {7168, 14336}) {
    // reference: the library's narrow kernel
    GemmOperands<bf16_t> op{a, w, m, n, k, k, k};
    Epi::Params p({nullptr}, {Activation::identity}, {y, n});
    segment_tiles() = SegmentTiles::narrow;
    CK(cudaMemset(y, 0xff, m * n * 2));
    if (!launch_gemm<bf16_t, Epi>(op, p, dev, nullptr).ok()) return 1;
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> ref(m * n * 2);
    CK(cudaMemcpy(ref.data(), y, ref.size(), cudaMemcpyDeviceToHost));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 50; ++i) (void)launch_gemm<bf16_t, Epi>(op, p, dev, nullptr);
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    std::printf("k=%lld narrow %.2f us/call\n", (long long)k, ms * 1000 / 50);
    const int segs = 3;
    for (int rep = 0; rep < 2; ++rep) {
    if (time_variant<MulticastSwappedMainLoopSm90<bf16_t, 72, 12, 3, true, false>>("A mc3", m, n, k, segs, ref)) return 1;
    if (time_variant<MulticastSwappedMainLoopSm90<bf16_t, 72, 12, 1, true, false>>("B no cluster, mapa arrive", m, n, k, segs, ref)) return 1;
    if (time_variant<MulticastSwappedMainLoopSm90<bf16_t, 72, 12, 1, false, false>>("G no cluster, local arrive", m, n, k, segs, ref)) return 1;
    }
  }
  return 0;
}
