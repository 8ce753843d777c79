// fusekit/reduce/staged_traits.hpp: the layout of the staged row kernel (sm_90+), and when it runs,
// from N and the dtypes, never the row count (tile_traits.hpp lays out the register kernels).
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
// A CTA's share of a row split over a cluster may run on up to 1024 threads: few long rows put
// one CTA on an SM, and its warps alone must hide the stage's and the reductions' latencies.
constexpr int kMaxSlicedThreads = 1024;
// Sliced CTAs of at most 256 threads whose stage leaves room for five an SM (bf16 N = 262144 with
// its parameters read from global memory: 32 KB) run a kernel compiled for five CTAs an SM (48
// registers a thread, where up to 1024 threads allow 64), so that more of a call's clusters run at
// once: 16-CTA clusters at four an SM fit 28 rows on an H100, and the benchmark's 32 took two waves.
// The plan takes it where that saves a wave (narrow_saves_waves).
constexpr int kNarrowSlicedThreads = 256;
constexpr int kNarrowSlicedCtasPerSm = 5;
constexpr int kNarrowSlicedMaxStageBytes = 40 * 1024;
constexpr int kMaxStagedStageBytes = 72 * 1024;  // one row (and its residual); 3 such CTAs fit an SM
constexpr std::int64_t kStagedMinRowBytes = 20 * 1024;  // shorter rows stay in registers (measured)

// Rows longer than a stage are split over a cluster of 2..16 CTAs, each staging one slice of
// the row; the partial reductions meet through distributed shared memory, as in the register
// kernels' clusters. A slice is at most kMaxCluster-th of the longest row, 73728 bytes, and a
// vector (the last CTA's, on a row off its alignment); twice that with the residual.
constexpr int kMaxSliceVectors = max_threads_of(RowShape::cluster) * chunks_of(RowShape::cluster);
constexpr int kMaxSlicedStageBytes = 2 * round_up((kMaxSliceVectors + 1) * 16, 128);
// The slices' size (which picks the cluster), measured (RESULTS.md, eighteenth session): 64 KB on
// rows under 512 KB (bf16 N = 65536: clusters of 2, 1.41x-1.71x the register kernels' clusters of
// 8 at 128 rows; 4 beat 8 for f32 N = 65536), 32 KB beyond (bf16 N = 262144: 16 beat 8, 1.06x-1.11x
// at 32 rows).
constexpr int slice_bytes_for(std::int64_t row_bytes) { return row_bytes < 512 * 1024 ? 64 * 1024 : 32 * 1024; }

struct StagedLayout {
  int threads = 0;          // per CTA
  int stage_bytes = 0;      // shared memory: the input row (or slice), then the residual's
  int residual_offset = 0;  // where the residual row starts in the stage
  int cluster = 1;          // CTAs per row: 1, or 2..16 that each stage a slice of it
  int slice_vectors = 0;    // vectors of the row's span per CTA of a cluster (0: the whole row)
  int params_offset = 0;    // where the weight's slice, then the bias's, start in the stage (0: none staged)
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

// About `per_thread` vectors a thread, in whole warps, at most `max_threads`.
constexpr int staged_threads_for(int vectors, int per_thread = 8, int max_threads = kMaxStagedThreads) {
  const int threads = round_up(ceil_div(vectors, per_thread), 32);
  return threads > max_threads ? max_threads : threads;
}

// The register kernels' threads per row where they hold the row in one CTA; else about 8
// vectors a thread, in whole warps, at most 512 threads.
constexpr int staged_threads(std::int64_t cols, DType t) {
  const RowConfig c = select_row_config(cols, t);
  if (c.shape != RowShape::cluster) return c.threads_per_row;
  return staged_threads_for(c.vectors);
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

// Rows the register kernels split over a cluster and that no single stage holds.
constexpr bool sliced_fits(std::int64_t cols, DType t, bool residual) {
  return select_row_config(cols, t).shape == RowShape::cluster && !staged_fits(cols, t, residual);
}

// Vectors a thread of the sliced rows (8: measured with up to 512 threads, eighteenth session).
constexpr int kSliceVectorsPerThread = 8;

// The default for an op and dtype: 16 for f32 rows without an epilogue (softmax: 1.10x-1.19x at
// 128 x 65536, 32 x 262144 and 8 x 262144 against 8), else kSliceVectorsPerThread (16 ran the
// bf16 rows and most norms 0.71x-1.05x). RESULTS.md, thirty-first session. From the dtype and
// the op alone, so a row's bits still never depend on the row count.
constexpr int sliced_vectors_per_thread(DType t, bool has_epilogue) {
  return t == DType::f32 && !has_epilogue ? 16 : kSliceVectorsPerThread;
}

// Precondition: sliced_fits(cols, t, residual). The cluster and the threads come from N and the
// dtype only (a row's bits depend on both), never from the residual or the row count: the
// smallest cluster whose slices hold about `slice_bytes` of the input row (0: slice_bytes_for the
// row; 16 CTAs at most), then about `vectors_per_thread` vectors a thread (0: kSliceVectorsPerThread;
// else clamped to 1-16; the dispatch passes sliced_vectors_per_thread), in whole warps, at most
// kMaxSlicedThreads (512 from 8 a thread up).
constexpr StagedLayout select_sliced_layout(std::int64_t cols, DType t, bool residual, int slice_bytes = 0,
                                            int vectors_per_thread = 0) {
  const RowConfig c = select_row_config(cols, t);
  if (slice_bytes <= 0) slice_bytes = slice_bytes_for(cols * std::int64_t(dtype_size(t)));
  // Within what was measured, and so that a stage never exceeds kMaxSlicedStageBytes.
  slice_bytes = slice_bytes < 16 * 1024 ? 16 * 1024 : slice_bytes > 64 * 1024 ? 64 * 1024 : slice_bytes;
  if (vectors_per_thread <= 0) vectors_per_thread = kSliceVectorsPerThread;
  vectors_per_thread = vectors_per_thread > 16 ? 16 : vectors_per_thread;
  StagedLayout l;
  l.cluster = 2;
  // Sized on an aligned row (one vector less than c.vectors), so that power-of-two rows get
  // power-of-two slices, and as many threads as an aligned slice's vectors need: the last CTA
  // takes the rest, one vector more on a row off its alignment. (Slices sized on that vector put
  // a ninth vector on one thread of every CTA and 288 threads on bf16 N = 262144, three CTAs an
  // SM: 21 of its 16-CTA clusters at once, against 28 at 256 threads. Forty-fifth session.)
  while (l.cluster < kMaxCluster && ceil_div(c.vectors - 1, l.cluster) * 16 > slice_bytes) l.cluster *= 2;
  l.slice_vectors = ceil_div(c.vectors - 1, l.cluster);
  // The default keeps the 512 threads it was measured with; fewer vectors a thread may take more.
  const int max_threads = vectors_per_thread < kSliceVectorsPerThread ? kMaxSlicedThreads : kMaxStagedThreads;
  l.threads = staged_threads_for(l.slice_vectors, vectors_per_thread, max_threads);
  l.residual_offset = round_up((l.slice_vectors + 1) * 16, 128);
  l.stage_bytes = l.residual_offset * (residual ? 2 : 1);
  return l;
}

// Whether a sliced layout runs the narrow kernel (kNarrowSlicedThreads). Compiled for 16-bit rows
// only, the rows it was written for; f32 N = 131072 (256 threads, 32 KB) would qualify, unmeasured.
constexpr bool takes_narrow_slices(const StagedLayout& l, DType t) {
  return dtype_size(t) == 2 && l.threads <= kNarrowSlicedThreads && l.stage_bytes <= kNarrowSlicedMaxStageBytes;
}

// Whether the narrow kernel, of which the device runs `narrow` clusters at once where it runs `wide`
// of the other, takes `rows` in fewer waves. It runs a wave about 10% slower (48 registers a thread:
// bf16 RMSNorm N = 262144 on an H100, 22-28 rows 0.89-0.90x, 29-35 rows 1.08-1.13x; RESULTS.md,
// forty-seventh session), so it is taken only where it saves one.
constexpr bool narrow_saves_waves(std::int64_t rows, int wide, int narrow) {
  if (wide <= 0 || narrow <= wide) return false;
  return (rows + narrow - 1) / narrow < (rows + wide - 1) / wide;
}

// The sliced layout with the parameters' slices staged after the row's (and its residual's): `params`
// of them (1: the weight; 2: the weight, then the bias), each as large as the row's slice, for
// vector-aligned calls (RowParams::vectors_aligned: parameters in the row's dtype, on whole
// vectors). The values the write loop reads are the same, so are the bits; only where they are
// read from changes (the dispatch says when).
constexpr StagedLayout with_staged_params(StagedLayout l, int params) {
  l.params_offset = l.stage_bytes;
  l.stage_bytes += params * l.residual_offset;
  return l;
}

}  // namespace fusekit::reduce
