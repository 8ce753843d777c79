// fusekit/reduce/staged_traits.hpp: the layout of the staged row kernel (sm_90+), and when it runs,
// from N, the dtypes and the row count (tile_traits.hpp lays out the register kernels).
//
// Why stage rows: a kernel that loads its row into registers holds only that row in flight while it
// reduces and writes, and what a CTA can hold is bounded by registers: rows the register kernels
// split over a thread-block cluster (f32 N = 16384) ran at 17-32% of a copy. In the staged kernel one
// thread hands the copy engine the CTA's row, which lands in shared memory: a CTA holds a whole long
// row without a cluster and without registers to hold it.
//
// A row's bits depend on `threads` only (each thread sums the same vectors in the same order). For
// rows the register kernels hold in one CTA, `threads` is their threads_per_row and the staged
// agent does the same float operations in the same order: the two kernels give the same bits, and
// the dispatch picks either by measured speed (staged_is_faster). Rows the register kernels split
// over a cluster are staged wherever they fit (f32 N = 16384: 1.5-1.6x); that choice changes bits
// against the cluster kernel, so it never depends on the row count.
#pragma once

#include "fusekit/reduce/tile_traits.hpp"

#include <cstddef>
#include <cstdint>

namespace fusekit::reduce {

constexpr int kMaxStagedThreads = 512;
constexpr int kMaxStagedStageBytes = 72 * 1024;  // one row (and its residual); 3 such CTAs fit an SM
constexpr std::int64_t kStagedMinRowBytes = 20 * 1024;  // shorter rows stay in registers (measured)

struct StagedLayout {
  int threads = 0;          // per CTA, one row per CTA
  int stage_bytes = 0;      // shared memory: the input row, then the residual row
  int residual_offset = 0;  // where the residual row starts in the stage
};

// Bytes a row of `cols` elements needs in a stage, rounded so stages stay 128-byte aligned.
constexpr int staged_row_bytes(std::int64_t cols, DType t) {
  return round_up(int(cols * std::int64_t(dtype_size(t))), 128);
}

// Whether rows of `cols` elements fit a stage: longer than the sub-warp layout and no more than
// kMaxStagedStageBytes with the residual row.
constexpr bool staged_fits(std::int64_t cols, DType t, bool residual) {
  if (select_row_config(cols, t).shape == RowShape::sub_warp) return false;
  return staged_row_bytes(cols, t) * (residual ? 2 : 1) <= kMaxStagedStageBytes;
}

// The register kernels' threads per row where they hold the row in one CTA; else about 8
// vectors a thread, in whole warps, at most 512 threads.
constexpr int staged_threads(std::int64_t cols, DType t) {
  const RowConfig c = select_row_config(cols, t);
  if (c.shape != RowShape::cluster) return c.threads_per_row;
  const int threads = round_up(ceil_div(c.vectors, 8), 32);
  return threads > kMaxStagedThreads ? kMaxStagedThreads : threads;
}

// Whether the register kernels compute rows of `cols` elements with the same bits.
constexpr bool registers_match_staged(std::int64_t cols, DType t) {
  return select_row_config(cols, t).shape != RowShape::cluster;
}

// The automatic choice, for rows that fit a stage (staged_fits). From N, the dtype and the op only:
// where both kernels hold a row they give the same bits, so the choice may follow measured speed
// (benchmark/RESULTS.md, 2026-12-02, seventeenth session): softmax (no epilogue) is staged from
// 20 KB rows (f32 N = 5376 / 8192: 1.08x / 1.12x the register kernels); the norms, whose staged
// epilogue reads each parameter vector through a test and an out-of-line slow path, stay in
// registers (f32 N = 5376 / 8192, bf16 N = 16384: 1.07x-1.23x the staged kernel).
constexpr bool staged_is_faster(std::int64_t cols, DType t, bool has_epilogue) {
  if (!registers_match_staged(cols, t)) return true;
  return !has_epilogue && cols * std::int64_t(dtype_size(t)) >= kStagedMinRowBytes;
}

// Precondition: staged_fits(cols, t, residual).
constexpr StagedLayout select_staged_layout(std::int64_t cols, DType t, bool residual) {
  StagedLayout l;
  l.threads = staged_threads(cols, t);
  l.residual_offset = staged_row_bytes(cols, t);
  l.stage_bytes = l.residual_offset * (residual ? 2 : 1);
  return l;
}

}  // namespace fusekit::reduce
