// fusekit/gemm/epilogue/rotary.hpp: rotary embedding, rotate-half convention, on the first
// rot_dim channels of each head_dim-wide head in [col_begin, col_end):
//   x1 = x[0, h), x2 = x[h, 2h) with h = rot_dim / 2;  x <- x * cos + cat(-x2, x1) * sin.
// cos and sin are fp32 [M, rot_dim], one row per token; channels past rot_dim pass through.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

struct Rotary {
  struct Params {
    const float* cos = nullptr;  // null: this node does nothing
    const float* sin = nullptr;
    std::int64_t ld_cos = 0, ld_sin = 0;
    int rot_dim = 0;
    int head_dim = 128;
    std::int64_t col_begin = 0, col_end = 0;
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    if (p.cos == nullptr || p.rot_dim == 0 || t.col0 >= p.col_end || t.col0 + t.cols <= p.col_begin) return;
    const int h = p.rot_dim / 2;
    // Four pairs per thread with 16-byte loads of cos/sin where the rows allow (H3: h = 48).
    if (h % 4 == 0 && rows_aligned16(p.cos, p.ld_cos) && rows_aligned16(p.sin, p.ld_sin))
      rotate<4>(p, t);
    else
      rotate<1>(p, t);
  }

 private:
  // V floats in one access (V = 4: 16 bytes; both sides aligned, as checked above).
  template <int V> __device__ static void copy(float* dst, const float* src) {
    using Vec = std::conditional_t<V == 4, float4, float>;
    *reinterpret_cast<Vec*>(dst) = *reinterpret_cast<const Vec*>(src);
  }

  // A thread keeps one (head, group of V pairs) and steps over rows, t.threads / per_row rows
  // at a time (per_row = heads x groups <= cols / 2 <= threads): no integer division per item.
  // Its cos/sin loads are issued before the first use (the loop is bound by load latency).
  template <int V> __device__ static void rotate(const Params& p, AccTile& t) {
    const int h = p.rot_dim / 2, groups = h / V, heads = t.cols / p.head_dim, per_row = heads * groups;
    const int rows_per_pass = per_row > 0 ? t.threads / per_row : 0;
    if (t.thread >= rows_per_pass * per_row) return;  // the few threads left over
    const int hg = t.thread % per_row, head = hg / groups, j = (hg % groups) * V;
    const std::int64_t gc = t.col0 + std::int64_t(head) * p.head_dim;
    if (gc < p.col_begin || gc >= p.col_end) return;
    for (int r = t.thread / per_row; r < t.rows; r += rows_per_pass) {
      alignas(16) float c1[V], c2[V], s1[V], s2[V];
      const float* cs = p.cos + (t.row0 + r) * p.ld_cos;
      const float* sn = p.sin + (t.row0 + r) * p.ld_sin;
      copy<V>(c1, cs + j), copy<V>(c2, cs + j + h), copy<V>(s1, sn + j), copy<V>(s2, sn + j + h);
      float* x = &t.at(r, head * p.head_dim);
      alignas(16) float x1[V], x2[V], y1[V], y2[V];
      copy<V>(x1, x + j), copy<V>(x2, x + j + h);
#pragma unroll
      for (int e = 0; e < V; ++e) {
        y1[e] = x1[e] * c1[e] - x2[e] * s1[e];
        y2[e] = x2[e] * c2[e] + x1[e] * s2[e];
      }
      copy<V>(x + j, y1), copy<V>(x + j + h, y2);
    }
  }
};

}  // namespace fusekit::gemm
