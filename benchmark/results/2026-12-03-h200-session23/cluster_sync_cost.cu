// Cost of one cluster-wide barrier a row-reduction round would pay, in a cluster of 8 CTAs:
// barrier.cluster.arrive.release + wait.acquire (what cg::cluster_group::sync() emits) vs the
// .relaxed arrive + wait, in a loop; cycles per iteration (clock64, thread 0 of each CTA).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
template <int kMode>
__global__ void __cluster_dims__(8, 1, 1) sync_loop(int n, long long* cycles, float* sink) {
  __shared__ float slot;
  cg::cluster_group cluster = cg::this_cluster();
  float v = threadIdx.x;
  cluster.sync();
  const long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    if (threadIdx.x == 0) slot = v + i;
    if constexpr (kMode == 0) cluster.sync();
    if constexpr (kMode == 1)
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;\n" ::: "memory");
    if constexpr (kMode == 2)
      asm volatile("fence.acq_rel.cluster;\nbarrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;\n" ::: "memory");
    v += *cluster.map_shared_rank(&slot, (cluster.block_rank() + 1) % 8);
    cluster.sync();
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (v == -1.f) *sink = v;
}
int main() {
  long long* d; float* s; cudaMalloc(&d, 8 * sizeof(long long)); cudaMalloc(&s, 4);
  long long h[8]; const int n = 1000;
  const char* names[] = {"arrive.release + wait.acquire, twice", "arrive.relaxed + wait, then release/acquire", "fence.acq_rel.cluster + relaxed arrive, then release/acquire"};
  for (int m = 0; m < 3; ++m) for (int rep = 0; rep < 2; ++rep) {
    if (m == 0) sync_loop<0><<<8, 256>>>(n, d, s);
    if (m == 1) sync_loop<1><<<8, 256>>>(n, d, s);
    if (m == 2) sync_loop<2><<<8, 256>>>(n, d, s);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    long long mx = 0; for (long long c : h) mx = c > mx ? c : mx;
    printf("%s rep %d: %s, %.1f cycles an iteration (slowest CTA)\n", names[m], rep, cudaGetErrorString(e), mx / double(n));
  }
}
