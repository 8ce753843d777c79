// Does wgmma's per-element fp32 result depend on which operand a row sits in (A or B: "swap AB")
// or on the instruction's N (128 vs 256)? One warpgroup, K = 7168 in 64-deep slices, random bf16.
#include "fusekit/gemm/ptx_sm90.hpp"
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
using namespace fusekit;
namespace wg = fusekit::gemm::ptx;

constexpr int K = 7168, BK = 64;
// Row r, k-chunk c (8 bf16 = 16 bytes) of a K-major 128B-swizzled tile.
__device__ int swz(int r, int c) { return (r / 8) * 1024 + (r % 8) * 128 + ((c ^ (r % 8)) * 16); }

template <int N>
__global__ void mm(const bf16_t* a, int a_rows, const bf16_t* b, int b_rows, float* out) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* sa = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));             // 64 rows
  unsigned char* sb = sa + 64 * 128;  // N rows
  float d[N / 2];
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  for (int kb = 0; kb < K / BK; ++kb) {
    for (int i = threadIdx.x; i < (64 + N) * 8; i += 128) {
      const bool is_a = i < 64 * 8;
      const int r = (is_a ? i : i - 64 * 8) / 8, c = i % 8;
      const bf16_t* src = is_a ? a : b;
      const int rows = is_a ? a_rows : b_rows;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (r < rows) v = *reinterpret_cast<const uint4*>(src + std::size_t(r) * K + kb * BK + c * 8);
      *reinterpret_cast<uint4*>((is_a ? sa : sb) + swz(r, c)) = v;
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    wg::wgmma_fence();
    const std::uint64_t da = wg::smem_descriptor_sw128(sa), db = wg::smem_descriptor_sw128(sb);
    for (int k16 = 0; k16 < 4; ++k16) wg::wgmma_m64k16<bf16_t, N>(d, da + 2 * k16, db + 2 * k16, kb > 0 || k16 > 0);
    wg::wgmma_commit_group();
    wg::wgmma_wait_group<0>();
    for (int i = 0; i < N / 2; ++i) wg::fence_registers(d[i]);
    __syncthreads();
  }
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, r = warp * 16 + lane / 4;
  for (int j = 0; j < N / 8; ++j) {
    const int c = j * 8 + (lane % 4) * 2;
    out[r * N + c] = d[4 * j], out[r * N + c + 1] = d[4 * j + 1];
    out[(r + 8) * N + c] = d[4 * j + 2], out[(r + 8) * N + c + 1] = d[4 * j + 3];
  }
}

int main() {
  std::vector<bf16_t> x(64 * K), y(128 * K);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (int(s >> 9) % 20001 - 10000) / 10000.f; };
  for (auto& v : x) v = __float2bfloat16(rnd());
  for (auto& v : y) v = __float2bfloat16(rnd() * 0.02f);
  bf16_t *dx, *dy;
  float *c1, *c2, *c3;
  cudaMalloc(&dx, x.size() * 2), cudaMalloc(&dy, y.size() * 2);
  cudaMalloc(&c1, 64 * 128 * 4), cudaMalloc(&c2, 64 * 128 * 4), cudaMalloc(&c3, 64 * 256 * 4);
  cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), y.size() * 2, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(mm<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 128 + 128 * 128 + 1024);
  cudaFuncSetAttribute(mm<256>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 128 + 256 * 128 + 1024);
  mm<128><<<1, 128, 64 * 128 + 128 * 128 + 1024>>>(dx, 64, dy, 128, c1);  // x rows in A, y rows in B
  mm<128><<<1, 128, 64 * 128 + 128 * 128 + 1024>>>(dy, 64, dx, 64, c2);   // y rows in A, x rows in B (swap)
  mm<256><<<1, 128, 64 * 128 + 256 * 128 + 1024>>>(dx, 64, dy, 128, c3);  // as c1, N = 256
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("CUDA error %s\n", cudaGetErrorString(e)); return 2; }
  std::vector<float> h1(64 * 128), h2(64 * 128), h3(64 * 256);
  cudaMemcpy(h1.data(), c1, h1.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(h2.data(), c2, h2.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(h3.data(), c3, h3.size() * 4, cudaMemcpyDeviceToHost);
  int swap_diff = 0, n_diff = 0, ref_bad = 0;
  double max_rel = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 128; ++j) {
      if (j < 64 && std::memcmp(&h1[i * 128 + j], &h2[j * 128 + i], 4) != 0) ++swap_diff;
      if (std::memcmp(&h1[i * 128 + j], &h3[i * 256 + j], 4) != 0) ++n_diff;
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(__bfloat162float(x[i * K + k])) * double(__bfloat162float(y[j * K + k]));
      const double rel = std::abs(h1[i * 128 + j] - ref) / (std::abs(ref) + 1e-3);
      if (rel > max_rel) max_rel = rel;
      if (rel > 1e-2) ++ref_bad;
    }
  std::printf("elements differing: swap AB %d of 4096, N 128 vs 256 %d of 8192; vs float64 max rel %.3g (%d > 1e-2)\n",
              swap_diff, n_diff, max_rel, ref_bad);
  return 0;
}
