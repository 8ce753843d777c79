// fusekit/reduce/row_reducer.cuh: all-reduce over the threads (and CTAs) that hold one row.
//
// Every participant gets the same value, combined in a fixed order: butterfly shuffles inside a
// warp (a + b == b + a exactly, so all lanes agree bit for bit), then warps in index order, then
// the CTAs of a cluster in rank order through distributed shared memory. No atomics: the result
// is bitwise repeatable.
#pragma once

#include "fusekit/core/mbarrier.cuh"
#include "fusekit/reduce/tile_traits.hpp"

#include <cooperative_groups.h>

#include <cmath>
#include <cstdint>

namespace fusekit::reduce {

// identity() starts a thread's accumulators. -0 for the sum: -0 + x is x for every x, so the
// compiler drops the first add of each accumulator (+0 + x is not x when x is -0, so it kept it:
// 8 adds a thread a reduction on 16-bit rows).
struct SumOp {
  FUSEKIT_HD static constexpr float identity() { return -0.f; }
  __device__ static float combine(float a, float b) { return a + b; }
};
struct MaxOp {
  FUSEKIT_HD static constexpr float identity() { return -INFINITY; }
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};

// One thread's per-lane partials folded pairwise into one value, in a fixed order (every row
// kernel folds this way, so kernels that share a thread layout share the bits).
template <class Op, int N> __device__ __forceinline__ float fold_lanes(float (&acc)[N]) {
#pragma unroll
  for (int width = N / 2; width >= 1; width /= 2)
#pragma unroll
    for (int e = 0; e < width; ++e) acc[e] = Op::combine(acc[e], acc[e + width]);
  return acc[0];
}

// Shared memory the reducer needs, one per CTA.
struct ReducerStorage {
  static constexpr int kSlots = 4;  // reductions per row (one slot each, so no slot is reused)
  float warp_partials[kSlots][32];
};

// Rows split over a cluster: CTA c pushes its partial of reduction k into slot [k][c] of every
// CTA's exchange with st.async, which completes 4 bytes on that CTA's barrier landed[k]; each CTA
// waits on its own barrier and folds the slots in rank order. No cluster barrier a reduction
// (cg's cluster.sync() is a GPU-scope fence and an L1 invalidation: about 400 cycles on the
// H200, RESULTS.md, twenty-third session), and none at exit: a CTA's exchange is written only by
// the pushes it waits for. Declared here, so only the kernels that reduce over a cluster hold it.
struct ClusterExchange {
  std::uint64_t landed[ReducerStorage::kSlots];
  float partials[ReducerStorage::kSlots][kMaxCluster];
};
__device__ __forceinline__ ClusterExchange& cluster_exchange() {
  __shared__ ClusterExchange exchange;
  return exchange;
}

// Kernel start, every thread of a CTA whose row spans `ranks` CTAs: thread 0 readies the
// barriers (each expects one partial from every CTA) and the cluster barrier's arrival announces
// them; the first reduction waits for every CTA's announcement, so its row loads go out first.
__device__ __forceinline__ void prepare_cluster_exchange(unsigned ranks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  ClusterExchange& x = cluster_exchange();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    for (int k = 0; k < ReducerStorage::kSlots; ++k) {
      ptx::mbarrier_init(&x.landed[k], 1);
      ptx::mbarrier_arrive_expect_tx(&x.landed[k], ranks * unsigned(sizeof(float)));
    }
    ptx::fence_barrier_init();
  }
  __cluster_barrier_arrive_relaxed();  // relaxed: the barrier inits are released by the fence above
#endif
}

// kMaxThreads: the most threads a row may have in one CTA. kFromRowZero: every thread folds the
// warp partials of the CTA's row 0 (its helpers', RowAgent's kHelped, are not read).
template <RowShape kShape, int kMaxThreads = max_threads_of(kShape), bool kFromRowZero = false> class RowReducer {
  static_assert(kMaxThreads / 32 <= 32, "ReducerStorage holds 32 warp partials a reduction");
  // The helpers get the row's sums through the warp partials: rows of whole warps only.
  static_assert(!kFromRowZero || (kShape != RowShape::sub_warp && kShape != RowShape::cluster));

 public:
  __device__ RowReducer(ReducerStorage& storage, int threads_per_row)
      : storage_(storage), threads_per_row_(threads_per_row) {}

  template <class Op> __device__ float all_reduce(float v) {
    // Only sub-warp rows may be narrower than a warp; the other shapes skip the run-time tests.
    const int width = kShape != RowShape::sub_warp || threads_per_row_ >= 32 ? 32 : threads_per_row_;
#pragma unroll
    for (int offset = 16; offset >= 1; offset /= 2)
      if (offset < width) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, offset));

    const int slot = slot_++;
    if constexpr (kShape != RowShape::sub_warp) {
      if (threads_per_row_ > 32) v = across_warps<Op>(v, slot);
    }
    if constexpr (kShape == RowShape::cluster) v = across_cluster<Op>(v, slot);
    return v;
  }

  // Pairs whose second value is a sum of terms relative to the first (softmax's max, and its sum
  // of exp(x - max)): combined over the row in one exchange, not one for each. At every level (the
  // warp's lanes, the CTA's warps, the cluster's CTAs) the firsts combine first (Pair::First), then
  // each partial's second is rescaled to that level's first (Pair::rescale) and the seconds sum, so
  // the rescales stay off the serial chain. Rows over a cluster only: there one exchange costs a
  // cluster round trip (1.04-1.11x on softmax's long rows), where in one CTA the pair's extra
  // exponentials cost more than the barrier it saves (0.90-0.95x; RESULTS.md, fortieth session).
  template <class Pair> __device__ float2 all_reduce_pair(float2 v) {
    static_assert(kShape == RowShape::cluster, "the pair changes a row's bits: rows over a cluster only");
    v = lanes_pair<Pair>(v);
    const int slot = slot_;
    slot_ += 2;
    if (threads_per_row_ > 32) {  // one row a CTA: slots from the row's start
      float* firsts = storage_.warp_partials[slot];
      float* seconds = storage_.warp_partials[slot + 1];
      const int warp = threadIdx.x / 32;
      if (threadIdx.x % 32 == 0) {
        firsts[warp] = v.x;
        seconds[warp] = v.y;
      }
      __syncthreads();
      v = fold_pairs<Pair>(firsts, seconds, threads_per_row_ / 32);
    }
    return pair_across_cluster<Pair>(v, slot);
  }

 private:
  template <class Op> __device__ float across_warps(float v, int slot) {
    const int warps = threads_per_row_ / 32;
    float* partials = storage_.warp_partials[slot] + threadIdx.y * warps;
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) partials[warp] = v;
    __syncthreads();
    if constexpr (kFromRowZero) partials = storage_.warp_partials[slot];
    return fold_tiers<Op, kMaxThreads / 32>(partials[0], partials, warps);
  }

  // Partials [kFrom, ...) of `warps` folded into v in index order, in tiers of 4, 8, 16 and 32
  // warps behind uniform branches: a row of 4 warps (N = 1537) skips the predicated loads of warps
  // 5-8. Each tier a fixed trip count, predicated: the runtime-count loop was unrolled with a
  // remainder and cost twice the instructions. Same order, same bits.
  template <class Op, int kMaxWarps, int kFrom = 1>
  __device__ static float fold_tiers(float v, const float* partials, int warps) {
    constexpr int kEnd = kFrom == 1 ? 4 : 2 * kFrom;
    constexpr int kTo = kEnd < kMaxWarps ? kEnd : kMaxWarps;
#pragma unroll
    for (int w = kFrom; w < kTo; ++w)
      if (w < warps) v = Op::combine(v, partials[w]);
    if constexpr (kTo < kMaxWarps)
      if (warps > kTo) v = fold_tiers<Op, kMaxWarps, kTo>(v, partials, warps);
    return v;
  }

  // Every thread holds the CTA's partials of slots [slot, slot + K); thread r pushes them to CTA r
  // (prepare_cluster_exchange), and each CTA waits for every CTA's partials in its own exchange.
  // Returns the cluster's CTAs.
  template <int K> __device__ unsigned exchange_over_cluster(const float (&v)[K], int slot) {
    unsigned ranks = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    ClusterExchange& x = cluster_exchange();
    if (slot == 0) cluster.barrier_wait();  // every CTA's barriers ready (prepare_cluster_exchange)
    ranks = cluster.num_blocks();
    if (threadIdx.x < ranks)
#pragma unroll
      for (int k = 0; k < K; ++k)
        ptx::st_async_to_rank(&x.partials[slot + k][cluster.block_rank()], &x.landed[slot + k], threadIdx.x, v[k]);
#pragma unroll
    for (int k = 0; k < K; ++k) ptx::mbarrier_wait(&x.landed[slot + k], 0);  // each completes once: one row a CTA
#endif
    return ranks;
  }

  template <class Op> __device__ float across_cluster(float v, int slot) {
    const unsigned ranks = exchange_over_cluster<1>({v}, slot);
    const float* partials = cluster_exchange().partials[slot];
    v = partials[0];
    for (unsigned r = 1; r < ranks; ++r) v = Op::combine(v, partials[r]);
    return v;
  }

  // The warp's pairs combined by butterflies, every lane getting the same bits (Pair::rescale
  // rounds its product alone, so a partner lane's add cannot absorb it into a fused multiply-add).
  template <class Pair> __device__ static float2 lanes_pair(float2 v) {
    float first = v.x;
#pragma unroll
    for (int offset = 16; offset >= 1; offset /= 2)
      first = Pair::First::combine(first, __shfl_xor_sync(0xffffffffu, first, offset));
    float second = Pair::rescale(v.y, v.x, first);
#pragma unroll
    for (int offset = 16; offset >= 1; offset /= 2) second += __shfl_xor_sync(0xffffffffu, second, offset);
    return {first, second};
  }

  // `count` (<= 32) partials in shared memory, the same result in every thread: up to 8 folded in
  // index order, as the float path folds; more one a lane through lanes_pair, so that a CTA of 1024
  // threads rescales once a thread, not 32 times.
  template <class Pair> __device__ static float2 fold_pairs(const float* firsts, const float* seconds, int count) {
    if (count > 8) {
      const int lane = int(threadIdx.x % 32);
      return lanes_pair<Pair>(lane < count ? float2{firsts[lane], seconds[lane]} : Pair::identity());
    }
    float first = firsts[0];
#pragma unroll 1
    for (int i = 1; i < count; ++i) first = Pair::First::combine(first, firsts[i]);
    float second = Pair::rescale(seconds[0], firsts[0], first);
#pragma unroll 1
    for (int i = 1; i < count; ++i) second += Pair::rescale(seconds[i], firsts[i], first);
    return {first, second};
  }

  template <class Pair> __device__ float2 pair_across_cluster(float2 v, int slot) {
    const int ranks = int(exchange_over_cluster<2>({v.x, v.y}, slot));
    return fold_pairs<Pair>(cluster_exchange().partials[slot], cluster_exchange().partials[slot + 1], ranks);
  }

  ReducerStorage& storage_;
  int threads_per_row_;
  int slot_ = 0;
};

}  // namespace fusekit::reduce
