// fusekit/gemm/split_k.hpp: K cut into a fixed number of segments, for long, narrow weights whose
// tile columns alone leave SMs idle (MiniMax-H3's out_proj and fc2: 42 columns of 128 on 132 SMs).
//
// Every output is the left fold of S partial sums, one per contiguous range of k-slices,
// ((p0 + p1) + p2) + ..., each p_s summed by wgmma from zero in ascending k. A tile is run in
// one of two ways:
//  * whole: one CTA computes p0, p1, ... in turn and folds each into a running sum: its fp32
//    staging tile (`MainLoopSm90::stage<Fold::add>`), its registers and a global slot (128 x 256
//    tiles, fragment_fold.hpp) or its registers alone (swapped 160-token tiles);
//  * split: S CTAs each compute one p_s and publish it to a global workspace; whichever arrives
//    last folds the S partials in segment order and runs the epilogue (`SplitExchange`). No CTA
//    waits for another, so any grid and any residency works. Where the runtime guarantees that
//    the grid is resident at once (a cooperative launch of the few-row kernel), the S CTAs wait
//    for each other instead and each folds and finishes a share of the tile's rows (`SharedFold`).
// Both do the same float additions in the same order, so the bits do not depend on the way, and
// S is chosen from N, K and the GPU alone (`choose_k_segments`): a row's result never depends on
// how many rows share the call. Split tiles fill what whole tiles leave idle: all of the grid at
// 70 tokens (3 x 42 CTAs), the last, partial wave at 4096 tokens (`split_tail_tiles`).
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <atomic>
#include <cstdint>

namespace fusekit::gemm {

inline constexpr int kMaxKSegments = 4;
inline constexpr int kMinSegmentSlices = 16;  // k-slices per segment: the ring must fill and drain

// Contiguous ranges of a tile's k-slices; segment s is [s * k_blocks / count, (s + 1) * k_blocks / count).
struct KSegments {
  int count = 1;
  FUSEKIT_HD void range(int s, int k_blocks, int& begin, int& end) const {
    begin = static_cast<int>(std::int64_t(s) * k_blocks / count);
    end = static_cast<int>(std::int64_t(s + 1) * k_blocks / count);
  }
};

// How a segment's sum enters the running sum: the first segment stores, later ones add.
enum class Fold : std::uint8_t { store, add };

// One unit of a persistent CTA's work: a whole tile (segment < 0), or one K segment of a split tile.
struct WorkItem {
  std::int64_t tile = 0;
  int segment = -1;
  std::int64_t split = -1;  // index among the split tiles: its workspace slots and arrival counters
};

// The kernel's plan: tiles [0, whole_tiles) of the tile order run whole, the rest split. The
// workspace holds, per split tile and consumer warpgroup, one fp32 partial per segment (a 64 x
// 128 staged tile, or a 128 x 256 tile's 64 x 256 fragment) and an arrival counter that is 0
// between launches (the folding CTA resets it; SharedFold uses a tile's two counters and slots
// as its own layout); for 128 x 256 tiles also each CTA's running sums (fragment_fold.hpp).
struct SplitPlan {
  static constexpr int kPartialFloats = 64 * 128;  // a consumer's staged 64 x 128 tile
  KSegments segments;
  std::int64_t whole_tiles = 0;
  float* partials = nullptr;     // [split tiles][consumers][segments][partial floats]
  unsigned* arrivals = nullptr;  // [split tiles][consumers]
  float* running = nullptr;      // 128 x 256 tiles: [CTAs][consumers][fragment floats]
  bool shared_fold = false;      // SharedFold: set only for a cooperative launch, one item a CTA

  FUSEKIT_HD constexpr std::int64_t items(std::int64_t tiles) const {
    return whole_tiles + (tiles - whole_tiles) * segments.count;
  }
  FUSEKIT_HD WorkItem item(std::int64_t i) const {
    if (i < whole_tiles) return {i, -1, -1};
    const std::int64_t u = i - whole_tiles, split = u / segments.count;
    return {whole_tiles + split, static_cast<int>(u - split * segments.count), split};
  }
};

// ((p0 + p1) + p2) + ... of one float4 over `count` segments: segment `own`'s is `mine`, the
// others' are in `partner` (the fold order of every way, so every way has the same bits).
__device__ __forceinline__ float4 fold_segments(const float4 (&partner)[kMaxKSegments], float4 mine, int own,
                                                int count) {
  float4 sum = own == 0 ? mine : partner[0];
#pragma unroll
  for (int s = 1; s < kMaxKSegments; ++s) {
    if (s >= count) break;
    const float4 p = s == own ? mine : partner[s];
    sum.x = sum.x + p.x, sum.y = sum.y + p.y, sum.z = sum.z + p.z, sum.w = sum.w + p.w;
  }
  return sum;
}

// A group's arrival at a split tile, after each of its threads stored its partial: true for the
// group that arrived last (`count` arrivals in all), which then may read every partner's
// partial; it also resets the counter for the next launch. `sync`: the group's barrier;
// `broadcast`: a shared word of the group.
template <class Sync>
__device__ bool arrive_last(unsigned* arrivals, int count, bool leader, unsigned* broadcast, Sync&& sync) {
  __threadfence();  // each thread's partial is visible GPU-wide before the group's arrival
  sync();
  if (leader) {
    unsigned before;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n" : "=r"(before) : "l"(arrivals) : "memory");
    if (before == unsigned(count - 1)) *arrivals = 0;  // every partner has arrived: ready for the next launch
    *broadcast = before;
  }
  sync();  // the acquiring arrival comes before the group's reads of the partners' partials
  return *broadcast == unsigned(count - 1);
}

// A consumer warpgroup's side of a split tile: publish this segment's staged partial, count the
// arrival, and fold all S partials if this was the last one.
template <int Consumers> struct SplitExchange {
  // `t`: this warpgroup's staged partial of segment `it.segment` (rows past M not copied). Returns
  // true when this warpgroup arrived last; `t` then holds ((p0 + p1) + ...), the same additions
  // in the same order as a whole tile's fold. `broadcast`: a shared word of this warpgroup.
  __device__ static bool publish_or_fold(const SplitPlan& plan, const WorkItem& it, int cw, const AccTile& t,
                                         unsigned* broadcast) {
    const int count = plan.segments.count;
    float* slots = plan.partials + ((it.split * Consumers + cw) * count) * std::int64_t(SplitPlan::kPartialFloats);
    unsigned* arrivals = plan.arrivals + it.split * Consumers + cw;
    const int vectors = t.rows * 32;  // 32 float4 per 128-column row
    float4* mine = reinterpret_cast<float4*>(slots + it.segment * SplitPlan::kPartialFloats);
    for (int i = t.thread; i < vectors; i += t.threads)
      __stcg(mine + i, *reinterpret_cast<const float4*>(&t.at(i >> 5, (i & 31) * 4)));
    if (!arrive_last(arrivals, count, t.thread == 0, broadcast, [&t] { t.sync(); })) return false;
    // The partners' partials come from L2: a chunk's loads all go out before any is used, so the
    // fold takes 4 round trips, not one per vector (64 rows: 16 a thread).
    constexpr int kChunk = 4;  // 8 spills under the 168-register cap ptxas works to
    for (int first = t.thread; first < vectors; first += kChunk * t.threads) {
      float4 v[kChunk][kMaxKSegments];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int i = first + j * t.threads;
#pragma unroll
        for (int s = 0; s < kMaxKSegments; ++s)
          if (i < vectors && s < count && s != it.segment)
            v[j][s] = __ldcg(reinterpret_cast<const float4*>(slots + s * SplitPlan::kPartialFloats) + i);
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int i = first + j * t.threads;
        if (i >= vectors) break;
        float4* own = reinterpret_cast<float4*>(&t.at(i >> 5, (i & 31) * 4));
        *own = fold_segments(v[j], *own, it.segment, count);  // each thread rewrites only what it read
      }
    }
    t.sync();  // the tile is summed before the epilogue reads it
    return true;
  }
};

// The few-row kernel's split tiles when every CTA of the grid is resident at once (cooperative
// launch) and runs one item: the S CTAs of a tile each publish the rows of the others' shares,
// wait until all S have, fold their own share's rows from every segment in segment order (the
// same additions as SplitExchange) and run the epilogue on them with both consumer warpgroups.
// Why: the last arrival of SplitExchange reads S - 1 whole partials and runs the epilogue of all
// the rows on one warpgroup after the weight stream ends; a share is a third of that, on 8 warps.
// Workspace per split tile: [segments][kRows][128] floats (the same size as SplitExchange's) and
// two counters (arrivals, then reads done: the last reader zeroes both for the next launch).
struct SharedFold {
  static constexpr int kRows = 128, kVectors = 32;  // a CTA tile's rows; float4s of a 128-column row

  // Rows [first, end) of a tile's `rows` that segment `s` of `count` folds and finishes.
  FUSEKIT_HD static void share(int s, int count, int rows, int& first, int& end) {
    first = s * rows / count;
    end = (s + 1) * rows / count;
  }

  // `tile`: this CTA's staged partial of segment `it.segment`, rows [0, rows) `ld` floats apart,
  // 128 columns; on return its share's rows hold ((p0 + p1) + ...). Run by `threads` threads
  // (`thread` this one's index) syncing with `sync`.
  template <class Sync>
  __device__ static void exchange(const SplitPlan& plan, const WorkItem& it, float* tile, int ld, int rows, int thread,
                                  int threads, Sync&& sync) {
    const int count = plan.segments.count;
    float* partials = plan.partials + it.split * std::int64_t(count) * kRows * 128;
    unsigned* arrivals = plan.arrivals + 2 * it.split;
    int first, end;
    share(it.segment, count, rows, first, end);
    float4* mine = reinterpret_cast<float4*>(partials + std::int64_t(it.segment) * kRows * 128);
    sync();  // every thread's rows staged (the consumers stage without a barrier)
    for (int i = thread; i < rows * kVectors; i += threads) {
      const int r = i / kVectors;
      if (r < first || r >= end) __stcg(mine + i, *reinterpret_cast<const float4*>(tile + r * ld + (i % kVectors) * 4));
    }
    __threadfence();  // this CTA's rows visible GPU-wide before its arrival
    sync();
    if (thread == 0) {
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;\n" ::"l"(arrivals) : "memory");
      unsigned seen = 0;
      for (;;) {  // the partners run at once (cooperative launch): they arrive
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(seen) : "l"(arrivals) : "memory");
        if (seen >= unsigned(count)) break;
        __nanosleep(64);
      }
    }
    sync();  // the acquiring load comes before every thread's reads of the partners' rows
    // This share's partner rows from L2: all loads of a chunk go out before any is used.
    constexpr int kChunk = 4;
    const int vectors = (end - first) * kVectors;
    for (int i0 = thread; i0 < vectors; i0 += kChunk * threads) {
      float4 v[kChunk][kMaxKSegments];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int i = i0 + j * threads + first * kVectors;
#pragma unroll
        for (int s = 0; s < kMaxKSegments; ++s)
          if (i < end * kVectors && s < count && s != it.segment)
            v[j][s] = __ldcg(reinterpret_cast<const float4*>(partials + std::int64_t(s) * kRows * 128) + i);
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int i = i0 + j * threads + first * kVectors;
        if (i >= end * kVectors) break;
        float4* own = reinterpret_cast<float4*>(tile + (i / kVectors) * ld + (i % kVectors) * 4);
        *own = fold_segments(v[j], *own, it.segment, count);  // each thread rewrites only what it read
      }
    }
    sync();  // the share is summed before the epilogue reads it; every partner row read
    if (thread == 0) {
      unsigned before;
      asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n" : "=r"(before) : "l"(arrivals + 1) : "memory");
      if (before == unsigned(count - 1)) arrivals[0] = arrivals[1] = 0;  // all S read: ready for the next launch
    }
  }
};

// ---- host side: how many segments, and which tiles to split ----

// Segments for a weight of `columns` CTA tile columns and `k_blocks` k-slices: the most (up to 4)
// that still give every SM at most one CTA for a single row of split tiles, with at least
// kMinSegmentSlices k-slices each. Depends on N, K and the GPU only, never on M.
constexpr int choose_k_segments(std::int64_t columns, int k_blocks, int sm_count) {
  int best = 1;
  for (int s = 2; s <= kMaxKSegments; ++s)
    if (columns * s <= sm_count && k_blocks / s >= kMinSegmentSlices) best = s;
  return best;
}

// How many of the last tiles to split: those of the last, partial wave of whole tiles, when
// their S-th parts spread over the grid finish in at most half the time of the whole wave they
// replace (the exchange and the shorter k-ranges cost the rest). 70 tokens: 42 tiles, one wave of
// thirds for all; 4096 tokens: 1344 tiles, 10 whole waves, then the last 24 tiles in thirds;
// 925 tokens: 336 tiles, whose last 72 would take 2 waves of thirds, measured no faster than one
// whole wave (H200, 2026-12-01), so they run whole. Only the speed depends on this, not the bits.
constexpr std::int64_t split_tail_tiles(std::int64_t tiles, int segments, int sm_count) {
  if (segments < 2 || sm_count < 1) return 0;
  const std::int64_t tail = tiles % sm_count;
  const std::int64_t waves_of_parts = (tail * segments + sm_count - 1) / sm_count;
  return 2 * waves_of_parts <= segments ? tail : 0;
}

// Process-wide override of that choice, for tests that compare the ways bit for bit and for
// benchmarks: every tile whole, every tile split (the swapped tiles, never split, run whole), or K
// in one segment (`unsplit`: the bits of long, narrow weights then differ from the default's;
// measurements only).
enum class SplitKWay : std::uint8_t { automatic, whole, split, unsplit };
inline std::atomic<SplitKWay>& split_k_way() {
  static std::atomic<SplitKWay> way{SplitKWay::automatic};
  return way;
}

// How the few-row kernel folds its split tiles: `automatic` folds in shares (SharedFold) where a
// cooperative launch can keep the grid resident, `last_arrival` always at the last arrival
// (SplitExchange). The same bits either way; for tests and benchmarks.
enum class SplitFold : std::uint8_t { automatic, last_arrival };
inline std::atomic<SplitFold>& split_fold() {
  static std::atomic<SplitFold> fold{SplitFold::automatic};
  return fold;
}

}  // namespace fusekit::gemm
