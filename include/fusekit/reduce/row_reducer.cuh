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

 private:
  template <class Op> __device__ float across_warps(float v, int slot) {
    const int warps = threads_per_row_ / 32;
    float* partials = storage_.warp_partials[slot] + threadIdx.y * warps;
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) partials[warp] = v;
    __syncthreads();
    if constexpr (kFromRowZero) partials = storage_.warp_partials[slot];
    v = partials[0];
    // A fixed trip count, predicated: the runtime-count loop was unrolled with a remainder and
    // cost twice the instructions. Same order, same bits.
    // Past 16 warps (the sliced rows' 1024-thread CTAs) behind one uniform branch, so that CTAs of
    // up to 16 warps run the same instructions as before.
    constexpr int kMaxWarps = kMaxThreads / 32;
    constexpr int kFirstWarps = kMaxWarps < 16 ? kMaxWarps : 16;
#pragma unroll
    for (int w = 1; w < kFirstWarps; ++w)
      if (w < warps) v = Op::combine(v, partials[w]);
    if constexpr (kMaxWarps > kFirstWarps) {
      if (warps > kFirstWarps) {
#pragma unroll
        for (int w = kFirstWarps; w < kMaxWarps; ++w)
          if (w < warps) v = Op::combine(v, partials[w]);
      }
    }
    return v;
  }

  // Every thread holds the CTA's partial v; thread r pushes it to CTA r (prepare_cluster_exchange).
  template <class Op> __device__ float across_cluster(float v, int slot) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    ClusterExchange& x = cluster_exchange();
    if (slot == 0) cluster.barrier_wait();  // every CTA's barriers ready (prepare_cluster_exchange)
    const unsigned ranks = cluster.num_blocks();
    if (threadIdx.x < ranks)
      ptx::st_async_to_rank(&x.partials[slot][cluster.block_rank()], &x.landed[slot], threadIdx.x, v);
    ptx::mbarrier_wait(&x.landed[slot], 0);  // each barrier completes once: one row a CTA
    v = x.partials[slot][0];
    for (unsigned r = 1; r < ranks; ++r) v = Op::combine(v, x.partials[slot][r]);
#endif
    return v;
  }

  ReducerStorage& storage_;
  int threads_per_row_;
  int slot_ = 0;
};

}  // namespace fusekit::reduce
