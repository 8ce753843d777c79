// Cost of a remote mbarrier arrive, .release.cluster vs the default (.release.cta), per warp.
#include <cstdint>
#include <cstdio>
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }
template <bool kCluster>
__global__ void __cluster_dims__(4, 1, 1) arrive_loop(int n, long long* cycles) {
  __shared__ std::uint64_t bar[4];
  if (threadIdx.x < 4) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(&bar[threadIdx.x])), "r"((1u << 20) - 1));
  asm volatile("fence.mbarrier_init.release.cluster;\nbarrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
  const long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    if (threadIdx.x % 32 < 4) {
      if constexpr (kCluster)
        asm volatile("{\n .reg .b32 r;\n mapa.shared::cluster.u32 r, %0, %1;\n mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n}\n" ::"r"(smem_addr(&bar[i % 4])), "r"(threadIdx.x % 32) : "memory");
      else
        asm volatile("{\n .reg .b32 r;\n mapa.shared::cluster.u32 r, %0, %1;\n mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(smem_addr(&bar[i % 4])), "r"(threadIdx.x % 32) : "memory");
    }
    __syncwarp();
  }
  const long long t1 = clock64();
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
  if (threadIdx.x % 32 == 0) cycles[blockIdx.x * 8 + threadIdx.x / 32] = t1 - t0;
}
int main() {
  long long* d; cudaMalloc(&d, 4 * 8 * sizeof(long long));
  long long h[32];
  const int n = 1000;
  for (int v = 0; v < 2; ++v) {
    for (int rep = 0; rep < 2; ++rep) {
      if (v) arrive_loop<true><<<4, 256>>>(n, d); else arrive_loop<false><<<4, 256>>>(n, d);
      cudaError_t e = cudaDeviceSynchronize();
      cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
      long long mx = 0, sum = 0; for (long long c : h) { sum += c; mx = c > mx ? c : mx; }
      printf("%s rep %d: %s, cycles per iteration per warp mean %.1f max %.1f\n", v ? ".release.cluster" : "default (.cta)", rep,
             cudaGetErrorString(e), sum / 32.0 / n, mx / double(n));
    }
  }
}
