// fusekit/reduce/row_reducer.cuh: all-reduce over the threads (and CTAs) that hold one row.
//
// Every participant gets the same value, combined in a fixed order: butterfly shuffles inside a
// warp (a + b == b + a exactly, so all lanes agree bit for bit), then warps in index order, then
// the CTAs of a cluster in rank order through distributed shared memory. No atomics: the result
// is bitwise repeatable.
#pragma once

#include "fusekit/reduce/tile_traits.hpp"

#include <cooperative_groups.h>

#include <cmath>

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
  float cta_partials[kSlots];
};

// kMaxThreads: the most threads a row may have in one CTA.
template <RowShape kShape, int kMaxThreads = max_threads_of(kShape)> class RowReducer {
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
    v = partials[0];
    // A fixed trip count, predicated: the runtime-count loop was unrolled with a remainder and
    // cost twice the instructions. Same order, same bits.
    constexpr int kMaxWarps = kMaxThreads / 32;
#pragma unroll
    for (int w = 1; w < kMaxWarps; ++w)
      if (w < warps) v = Op::combine(v, partials[w]);
    return v;
  }

  template <class Op> __device__ float across_cluster(float v, int slot) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) storage_.cta_partials[slot] = v;
    cluster.sync();
    const unsigned ranks = cluster.num_blocks();
    v = *cluster.map_shared_rank(&storage_.cta_partials[slot], 0u);
    for (unsigned r = 1; r < ranks; ++r) v = Op::combine(v, *cluster.map_shared_rank(&storage_.cta_partials[slot], r));
#endif
    return v;
  }

  ReducerStorage& storage_;
  int threads_per_row_;
  int slot_ = 0;
};

}  // namespace fusekit::reduce
