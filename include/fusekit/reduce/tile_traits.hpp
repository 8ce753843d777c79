// fusekit/reduce/tile_traits.hpp: how a row is laid out over threads, chosen from N and dtype alone.
//
// A row of N elements is read as 16-byte vectors. A thread holds `chunks` vectors in registers, a
// row is spread over `threads_per_row` threads of one CTA, and long rows over a `cluster` of CTAs that
// combine their partial reductions through distributed shared memory. Because the choice depends on
// N and the input dtype only (never on the number of rows), a row's arithmetic, and so its result,
// is the same whether it is reduced alone or among thousands.
//
// Why these numbers (H200, see benchmark/RESULTS.md, nineteenth session):
//  * 16-byte vectors and several per thread keep enough bytes in flight per SM to cover HBM latency;
//  * short rows use sub-warp groups (4..32 threads, shuffles only) so small N does not idle lanes;
//  * 2 vectors a thread up to 256 threads, then 4, then 8: at most 8 warps reduce a row, so a CTA's
//    barrier and its cross-warp sum stay cheap, and up to 256 threads a row keep the per-thread
//    serial work (convert, reduce, normalize, convert back) short. A probe of (threads, vectors)
//    splits of the bf16 mid rows found 2, 4 and 8 vectors a thread within a few percent of each
//    other at these thread counts, and 8-16 a thread slower for LayerNorm and softmax;
//  * threads x vectors covers an aligned row exactly; a row whose start is not 16-byte aligned spans
//    one vector more, which thread 0 of the general agent keeps in shared memory (row_agent.cuh),
//    so power-of-two rows keep power-of-two thread counts;
//  * rows longer than 8 x 256 vectors are split over a cluster of 2..16 CTAs, which combine their
//    partial reductions through distributed shared memory (or staged: staged_traits.hpp).
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cstdint>

namespace fusekit::reduce {

// Compile-time part of the layout: the kernel is instantiated once per distinct value.
enum class RowShape : std::uint8_t {
  sub_warp,  // 2 vectors per thread, 4..32 threads per row, many rows per CTA
  warps,     // 2 vectors per thread, 64..256 threads per row
  block,     // 4 vectors per thread, 160..256 threads per row
  wide,      // 8 vectors per thread, 160..256 threads per row
  cluster,   // 16 vectors per thread, 2..16 CTAs per row of 32..288 threads
};

FUSEKIT_HD constexpr int chunks_of(RowShape s) {
  return s == RowShape::sub_warp || s == RowShape::warps ? 2 : s == RowShape::block ? 4 : s == RowShape::wide ? 8 : 16;
}
FUSEKIT_HD constexpr int max_threads_of(RowShape s) {
  return s == RowShape::cluster ? 288 : 256;
}

struct RowConfig {
  RowShape shape = RowShape::sub_warp;
  int threads_per_row = 0;  // per CTA
  int cluster = 1;          // CTAs per row
  int vectors = 0;          // 16-byte vectors a row may span (N plus the worst misalignment)
  // threads_per_row * chunks() * cluster covers an aligned row; outside clusters a misaligned row's
  // one vector more is the general agent's spilled vector (RowAgent::kSpills).
  int chunks() const { return chunks_of(shape); }
};

constexpr int kMaxCluster = 16;

constexpr int elements_per_vector(DType t) { return 16 / static_cast<int>(dtype_size(t)); }

// The longest supported row for an input dtype: 16 CTAs x 288 threads x 16 vectors, less one
// vector of misalignment slack. f32: 294908, f16/bf16: 589816.
constexpr std::int64_t max_cols(DType t) {
  return (std::int64_t(kMaxCluster) * max_threads_of(RowShape::cluster) * chunks_of(RowShape::cluster) - 1) *
         elements_per_vector(t);
}

constexpr int round_up(int x, int m) { return (x + m - 1) / m * m; }
constexpr int ceil_div(std::int64_t a, std::int64_t b) { return static_cast<int>((a + b - 1) / b); }
constexpr int next_pow2(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

// Precondition: 1 <= cols <= max_cols(t).
constexpr RowConfig select_row_config(std::int64_t cols, DType t) {
  const int vec = elements_per_vector(t);
  const int aligned = ceil_div(cols, vec);  // the vectors of a row that starts on a 16-byte boundary
  RowConfig c;
  c.vectors = ceil_div(cols + vec - 1, vec);
  constexpr int kMax = max_threads_of(RowShape::warps);
  if (aligned <= 2 * 32) {
    c.shape = RowShape::sub_warp;
    const int t = next_pow2(ceil_div(aligned, 2));
    c.threads_per_row = t < 4 ? 4 : t;
  } else if (aligned <= 2 * kMax) {
    c.shape = RowShape::warps;
    c.threads_per_row = round_up(ceil_div(aligned, 2), 32);
  } else if (aligned <= 4 * kMax) {
    c.shape = RowShape::block;
    c.threads_per_row = round_up(ceil_div(aligned, 4), 32);
  } else if (aligned <= 8 * kMax) {
    c.shape = RowShape::wide;
    c.threads_per_row = round_up(ceil_div(aligned, 8), 32);
  } else {
    // The smallest cluster whose CTAs need <= 160 threads (then up to 28 clusters of 16 are
    // resident on an H200, against 14 at 288 threads); past 16 CTAs the CTAs grow instead. Sized
    // on the span of a misaligned row: the cluster agent has no extra slot.
    c.shape = RowShape::cluster;
    int cluster = 2;
    while (cluster < kMaxCluster && ceil_div(c.vectors, cluster * 16) > 160) cluster *= 2;
    c.cluster = cluster;
    c.threads_per_row = round_up(ceil_div(c.vectors, cluster * 16), 32);
  }
  return c;
}

// The layout of a row that one CTA holds, with `chunks` (2, 4 or 8) vectors a thread in whole warps
// instead of select_row_config's: for benchmark sweeps of the layout (reduce::row_vectors_per_thread).
// The default's where that would need more than 256 threads, or for sub-warp rows at 2 and cluster rows.
constexpr RowConfig row_config_with_chunks(std::int64_t cols, DType t, int chunks) {
  RowConfig c = select_row_config(cols, t);
  if (c.shape == RowShape::cluster || (c.shape == RowShape::sub_warp && chunks == 2)) return c;
  if (chunks != 2 && chunks != 4 && chunks != 8) return c;
  const int threads = round_up(ceil_div(ceil_div(cols, elements_per_vector(t)), chunks), 32);
  if (threads > max_threads_of(RowShape::warps)) return c;
  c.shape = chunks == 2 ? RowShape::warps : chunks == 4 ? RowShape::block : RowShape::wide;
  c.threads_per_row = threads;
  return c;
}

}  // namespace fusekit::reduce
