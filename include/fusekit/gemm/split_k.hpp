// fusekit/gemm/split_k.hpp: K cut into a fixed number of segments, for long, narrow weights whose
// tile columns alone leave SMs idle (MiniMax-H3's out_proj and fc2: 42 columns of 128 on 132 SMs).
//
// Every output is the left fold of S partial sums, one per contiguous range of k-slices,
// ((p0 + p1) + p2) + ..., each p_s summed by wgmma from zero in ascending k. Two ways run it:
//  * one CTA computes p0, p1, ... in turn and folds each into its fp32 staging tile
//    (`MainLoopSm90::stage<Fold::add>`), for calls with enough tiles to fill the GPU;
//  * a cluster of S CTAs shares a tile, CTA s computing p_s; the partials meet in distributed
//    shared memory, where CTA r sums a slice of the rows over the cluster in rank order and runs
//    the epilogue on it (`ClusterSplitK`), for calls with few rows (70 tokens: 3 x 42 CTAs).
// Both do the same float additions in the same order, so the bits do not depend on which ran, and
// S is chosen from N, K and the GPU alone (`choose_k_segments`): a row's result never depends on
// how many rows share the call, yet few-row calls still keep every SM streaming the weight.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/ptx_sm90.hpp"

#include <atomic>
#include <cstdint>

namespace fusekit::gemm {

// Contiguous ranges of a tile's k-slices; segment s is [s * k_blocks / count, (s + 1) * k_blocks / count).
struct KSegments {
  int count = 1;
  FUSEKIT_HD void range(int s, int k_blocks, int& begin, int& end) const {
    begin = static_cast<int>(std::int64_t(s) * k_blocks / count);
    end = static_cast<int>(std::int64_t(s + 1) * k_blocks / count);
  }
};

// Where a tile's K segments meet: one CTA computes them in turn, or a cluster shares the tile.
enum class KSum : std::uint8_t { one_cta, cluster };

// How a segment's sum enters the running sum: the first segment stores, later ones add.
enum class Fold : std::uint8_t { store, add };

template <int Consumers> struct ClusterSplitK {
  // Every thread of a consumer warpgroup arrives itself (kThreads per CTA): an arrival releases
  // only the arriving thread's own accesses, so one thread arriving for the group would leave
  // the others' writes (and reads) unordered for the partners.
  static constexpr unsigned kThreads = 128;
  struct Barriers {
    std::uint64_t ready[Consumers];  // every partner staged its partial of this round
    std::uint64_t freed[Consumers];  // every partner finished reading this CTA's partial
  };

  unsigned rank = 0, size = 1;
  std::uint32_t round = 0;  // exchanges this consumer warpgroup has done

  __device__ static void init(Barriers& b, unsigned size) {
    for (int i = 0; i < Consumers; ++i) {
      ptx::mbarrier_init(&b.ready[i], size * kThreads);
      ptx::mbarrier_init(&b.freed[i], size * kThreads);
    }
  }

  // Before a consumer stages its next partial: every partner is done with the previous one.
  __device__ void wait_freed(Barriers& b, int cw) const {
    if (round > 0) ptx::mbarrier_wait_cluster(&b.freed[cw], (round - 1) & 1u);
  }

  // `t` holds this CTA's partial of a 64-row fragment (staged, group-synced; t.threads == kThreads). Sums this CTA's
  // slice of rows over the cluster in rank order, in place, and narrows `t` to those rows.
  __device__ void reduce(Barriers& b, int cw, AccTile& t) {
    for (unsigned d = 0; d < size; ++d) ptx::mbarrier_arrive_remote(&b.ready[cw], d);
    ptx::mbarrier_wait_cluster(&b.ready[cw], round & 1u);

    const int slice = ((64 + int(size) - 1) / int(size) + 7) / 8 * 8;
    const int r0 = int(rank) * slice, r1 = r0 + slice < t.rows ? r0 + slice : t.rows;
    const int per_row = t.cols / 4, vectors = r1 > r0 ? (r1 - r0) * per_row : 0;
    for (int i = t.thread; i < vectors; i += t.threads) {
      float* p = &t.at(r0 + i / per_row, (i % per_row) * 4);
      float4 sum = ptx::ld_shared_cluster_f4(p, 0);
      for (unsigned s = 1; s < size; ++s) {  // the same additions, in the same order, as one CTA's fold
        const float4 v = ptx::ld_shared_cluster_f4(p, s);
        sum.x = sum.x + v.x, sum.y = sum.y + v.y, sum.z = sum.z + v.z, sum.w = sum.w + v.w;
      }
      *reinterpret_cast<float4*>(p) = sum;  // only this CTA reads its own slice's rows
    }
    for (unsigned d = 0; d < size; ++d) ptx::mbarrier_arrive_remote(&b.freed[cw], d);  // after my reads
    t.sync();  // the tile's rows are summed before the epilogue reads them
    ++round;

    t.data += r0 * t.ld;
    t.row0 += r0;
    t.rows = r1 > r0 ? r1 - r0 : 0;
  }
};

// ---- host side: how many segments, and which way to run them ----

inline constexpr int kMaxKSegments = 4;
inline constexpr int kMinSegmentSlices = 16;  // k-slices per segment: the ring must fill and drain

// Segments for a weight of `columns` CTA tile columns and `k_blocks` k-slices: the most (up to 4)
// that still give every SM at most one CTA for a single row of tiles, with every column's
// cluster resident at once (`fits[s]`: clusters of s CTAs the GPU runs together) and at least
// kMinSegmentSlices k-slices each. Depends on N, K and the GPU only, never on M.
constexpr int choose_k_segments(std::int64_t columns, int k_blocks, int sm_count,
                                const int (&fits)[kMaxKSegments + 1]) {
  int best = 1;
  for (int s = 2; s <= kMaxKSegments; ++s)
    if (columns * s <= sm_count && fits[s] >= columns && k_blocks / s >= kMinSegmentSlices) best = s;
  return best;
}

// A cluster per tile when its waves of shorter tiles finish in at most 3/4 of the time one CTA
// per tile takes (70 tokens: 1 wave of 1/3-tiles against 1 wave of whole ones); one CTA
// per tile otherwise (925 tokens: 8 waves of thirds against 3 whole waves). Only the speed depends
// on this choice, not the bits.
constexpr bool cluster_split(std::int64_t tiles, int segments, int fits, int sm_count) {
  if (segments < 2 || fits < 1) return false;
  const std::int64_t cluster_waves = (tiles + fits - 1) / fits, cta_waves = (tiles + sm_count - 1) / sm_count;
  return 4 * cluster_waves <= 3 * segments * cta_waves;
}

// Process-wide override of that choice, for tests that compare both ways bit for bit and for
// benchmarks. `unsplit` sums K in one segment: faster for large M, but the bits of long, narrow
// weights then differ from the default's (measurements only).
enum class SplitKWay : std::uint8_t { automatic, one_cta, cluster, unsplit };
inline std::atomic<SplitKWay>& split_k_way() {
  static std::atomic<SplitKWay> way{SplitKWay::automatic};
  return way;
}

}  // namespace fusekit::gemm
