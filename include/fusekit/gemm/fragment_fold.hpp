// fusekit/gemm/fragment_fold.hpp: K segments (split_k.hpp) of 128 x 256 tiles, folded in the
// consumers' registers through global memory.
//
// A narrow tile folds its segments in its fp32 staging tile (MainLoopSm90::stage<Fold::add>). A
// 128 x 256 tile's running sum is twice that, 128 KB, and would leave no room for the ring. So
// its first N-tile folds in the staging tile as a narrow tile's does, and the second in this
// CTA's slot of a global workspace (L2): `Fragment::store` after the first segment, `accumulate`
// after the middle ones, and after the last the slot plus the registers make the sum. Tiles split
// across CTAs publish whole fragments, and the last to arrive stages the fold of all of them
// (`FragmentExchange`). Both make the additions of split_k.hpp in its order, ((p0 + p1) + p2) +
// ..., so a row's bits are the narrow tiles' bits (wgmma's per-element sums do not depend on N).
#pragma once

#include "fusekit/gemm/split_k.hpp"

#include <cstdint>

namespace fusekit::gemm {

// N floats a thread of a consumer warpgroup's fragment, in global memory: float4 q of thread t at
// q * 128 + t, so each warp access covers 512 contiguous bytes. A thread reads back only what it
// wrote (same thread, same addresses: program order suffices). Nothing here writes the
// accumulators (see MainLoopSm90::stage_values).
template <int N> struct Fragment {
  static constexpr int kVectors = N / 4, kThreads = 128;
  static constexpr std::int64_t kFloats = std::int64_t(N) * kThreads;
  static_assert(N % 4 == 0, "whole float4s");

  __device__ static float4* at(float* slot, int q, int t) { return reinterpret_cast<float4*>(slot) + q * kThreads + t; }
  __device__ static float4 load(float* slot, int q, int t) { return __ldcg(at(slot, q, t)); }
  __device__ static float4 own(const float* v, int q) { return make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]); }
  __device__ static float4 add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

  // The first segment's sum: slot = v.
  __device__ static void store(float* slot, const float* v, int t) {
#pragma unroll
    for (int q = 0; q < kVectors; ++q) __stcg(at(slot, q, t), own(v, q));
  }
  // A middle segment's: slot = slot + v (the running sum first, as Fold::add adds). Loads go out
  // kChunk at a time: all 128 accumulators stay live between segments (the next segment's wgmma
  // reads them), which leaves room for 8 float4s.
  static constexpr int kChunk = 8;
  static_assert(kVectors % kChunk == 0, "whole chunks");
  __device__ static void accumulate(float* slot, const float* v, int t) {
#pragma unroll
    for (int q0 = 0; q0 < kVectors; q0 += kChunk) {
      float4 r[kChunk];
#pragma unroll
      for (int q = 0; q < kChunk; ++q) r[q] = load(slot, q0 + q, t);
#pragma unroll
      for (int q = 0; q < kChunk; ++q) __stcg(at(slot, q0 + q, t), add(r[q], own(v, q0 + q)));
      asm volatile("" ::: "memory");  // the next chunk's loads stay below this one's stores
    }
  }
};

// A consumer warpgroup's side of a split 128 x 256 tile: SplitExchange's protocol on fragments.
template <int Consumers, int N> struct FragmentExchange {
  using Frag = Fragment<N>;
  static constexpr std::int64_t kSlotFloats = Frag::kFloats;

  __device__ static float* slots(const SplitPlan& plan, const WorkItem& it, int cw) {
    return plan.partials + (it.split * Consumers + cw) * plan.segments.count * kSlotFloats;
  }

  // Publishes v, this warpgroup's sum of segment it.segment, and counts the arrival. True when
  // this warpgroup arrived last: `folded` then gives the tile's sum. `barrier`: the warpgroup's
  // named barrier; `broadcast`: a shared word of this warpgroup.
  __device__ static bool publish(const SplitPlan& plan, const WorkItem& it, int cw, const float* v, int barrier,
                                 unsigned* broadcast) {
    const int t = threadIdx.x % Frag::kThreads;
    Frag::store(slots(plan, it, cw) + it.segment * kSlotFloats, v, t);
    auto sync = [barrier] { asm volatile("bar.sync %0, 128;\n" ::"r"(barrier) : "memory"); };
    return arrive_last(plan.arrivals + it.split * Consumers + cw, plan.segments.count, t == 0, broadcast, sync);
  }

  // Float4 q of ((p0 + p1) + ...), every segment's from the workspace (this thread's own
  // included: it wrote those addresses itself).
  __device__ static float4 folded(const SplitPlan& plan, const WorkItem& it, int cw, int q) {
    const int count = plan.segments.count, t = threadIdx.x % Frag::kThreads;
    float* base = slots(plan, it, cw);
    float4 p[kMaxKSegments];
#pragma unroll
    for (int s = 0; s < kMaxKSegments; ++s)
      if (s < count) p[s] = Frag::load(base + s * kSlotFloats, q, t);
    float4 sum = p[0];
#pragma unroll
    for (int s = 1; s < kMaxKSegments; ++s)
      if (s < count) sum = Frag::add(sum, p[s]);
    return sum;
  }
};

}  // namespace fusekit::gemm
