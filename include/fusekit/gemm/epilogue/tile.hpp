// fusekit/gemm/epilogue/tile.hpp: the only thing an epilogue node sees: the CTA's fp32
// accumulator tile, staged in shared memory, with its global coordinates. Every main loop (the
// mma.sync one and the wgmma ones) stages its fragments into this form, so nodes never depend
// on a fragment layout.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/operands.hpp"

#include <cstdint>

namespace fusekit::gemm {

struct AccTile {
  float* data = nullptr;  // shared memory, row-major, `ld` floats per row
  int ld = 0;
  int rows = 0;            // valid rows (the last M-tile may be short)
  int cols = 0;            // columns that currently hold results; stages may shrink it (GLU)
  std::int64_t row0 = 0;   // global row of tile row 0
  std::int64_t col0 = 0;   // global output column of tile column 0
  WeightRows source;       // which W rows produced the accumulator columns (see operands.hpp)
  int half = 0;            // tile columns per source half
  // The threads that run the epilogue: all of a portable CTA, or some whole warps of a warp-
  // specialized one (a consumer warpgroup, both, the producer warpgroup's three epilogue warps,
  // or those and the consumers: kernel_sm90*.hpp), whose producer must not be stopped by them.
  int thread = 0, threads = 0;  // this thread's index within the group, group size (whole warps)
  int barrier = 0;              // 0: __syncthreads; else the named barrier the group syncs on

  __device__ void sync() const {
    if (barrier == 0)
      __syncthreads();
    else
      asm volatile("bar.sync %0, %1;\n" ::"r"(barrier), "r"(threads) : "memory");
  }

  // What a main loop hands its epilogue after staging: rows from global row `row0` (all that are
  // left of the matrix, at most max_rows), the accumulator columns `wr` produced (2 * half of
  // them, the valid ones counted), run by `threads` threads syncing on `barrier`.
  __device__ static AccTile staged(float* data, int ld, std::int64_t row0, std::int64_t rows_left, int max_rows,
                                   int half, const WeightRows& wr, int thread, int threads, int barrier) {
    AccTile t;
    t.data = data;
    t.ld = ld;
    t.rows = static_cast<int>(rows_left < max_rows ? rows_left : max_rows);
    t.half = half;
    t.cols = wr.count[1] > 0 ? half + wr.count[1] : wr.count[0];
    t.row0 = row0;
    t.col0 = wr.first[0];
    t.source = wr;
    t.thread = thread;
    t.threads = threads;
    t.barrier = barrier;
    return t;
  }

  __device__ float& at(int r, int c) const { return data[r * ld + c]; }
  // Eight consecutive values from (r, c), c a multiple of 8 (16-byte aligned in the tile).
  __device__ void load8(int r, int c, float (&v)[8]) const {
    const float4 lo = *reinterpret_cast<const float4*>(&at(r, c)), hi = *reinterpret_cast<const float4*>(&at(r, c + 4));
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
  }
  __device__ void store8(int r, int c, const float (&v)[8]) const {
    *reinterpret_cast<float4*>(&at(r, c)) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(&at(r, c + 4)) = make_float4(v[4], v[5], v[6], v[7]);
  }
  // Whether a W row is behind accumulator column c: on a GLU tile's last N-tile the first half
  // can be short too (its columns count[0] .. half - 1 hold zeros and are never stored).
  __device__ bool has_weight_row(int c) const { return c < half ? c < source.count[0] : c - half < source.count[1]; }
  // The W row (= nn.Linear output feature) behind accumulator column c.
  __device__ std::int64_t weight_row(int c) const {
    return c < half ? source.first[0] + c : source.first[1] + (c - half);
  }
};

// f(r, k) for every row r < t.rows and item k < per_row, items handed out round-robin. Where
// the group's threads are a whole number of rows' worth (the usual 128 threads over 128, 64, 16
// or 8 items a row) each thread keeps one item and steps over rows: no integer division per
// item, which in the qkv epilogue was most of the instructions (H200 profile, 2026-12-01).
template <class F> __device__ void for_each_row_item(const AccTile& t, int per_row, F&& f) {
  if (per_row > 0 && t.threads % per_row == 0) {
    const int k = t.thread % per_row, step = t.threads / per_row;
    for (int r = t.thread / per_row; r < t.rows; r += step) f(r, k);
    return;
  }
  for (int i = t.thread; i < t.rows * per_row; i += t.threads) f(i / per_row, i % per_row);
}

// f(value&, r, c) for every valid element; consecutive threads take consecutive columns.
template <class F> __device__ void for_each_element(const AccTile& t, F&& f) {
  for_each_row_item(t, t.cols, [&](int r, int c) { f(t.at(r, c), r, c); });
}

// f(r, c, v[8]) for every run of 8 valid columns (cols is a multiple of 8); for vector stores.
template <class F> __device__ void for_each_chunk8(const AccTile& t, F&& f) {
  for_each_row_item(t, t.cols / 8, [&](int r, int k) {
    float v[8];
    t.load8(r, k * 8, v);
    f(r, k * 8, v);
  });
}

// Eight consecutive elements of global memory, loaded raw (one 16-byte load for 16-bit types,
// two for f32) and converted later, so several loads can be in flight in few registers.
template <class T> struct Raw8 {
  static constexpr int kWords = sizeof(T) * 8 / 16;
  uint4 words[kWords];
  __device__ void load(const T* src) {
#pragma unroll
    for (int i = 0; i < kWords; ++i) words[i] = reinterpret_cast<const uint4*>(src)[i];
  }
  __device__ void to_floats(float (&v)[8]) const {
    const T* e = reinterpret_cast<const T*>(words);
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = to_float(e[i]);
  }
};

// Whether rows `ld` elements apart, starting at p, all start on 16-byte boundaries.
template <class T> __device__ __forceinline__ bool rows_aligned16(const T* p, std::int64_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (ld * std::int64_t(sizeof(T))) % 16 == 0;
}

// f(r, c0) once per (row, head) with one whole warp: heads are `width` columns starting at
// multiples of `width`; the warp's lanes cooperate (row reductions use warp shuffles).
template <class F> __device__ void for_each_head_row(const AccTile& t, int width, F&& f) {
  const int warp = t.thread / 32, warps = t.threads / 32;
  for (int r = warp; r < t.rows; r += warps)  // a warp takes whole rows: no division per head
    for (int c0 = 0; c0 + width <= t.cols; c0 += width) f(r, c0);
}

// Butterfly sum: every lane ends with the same value, in a fixed order (deterministic).
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace fusekit::gemm
