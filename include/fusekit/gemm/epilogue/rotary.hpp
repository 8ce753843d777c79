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
    if (p.cos == nullptr || p.rot_dim == 0) return;
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

  // Each thread takes V pairs of kUnroll (row, head, pair group) items at a time, all their
  // cos/sin loads issued before the first use (the loop is bound by load latency).
  template <int V> __device__ static void rotate(const Params& p, AccTile& t) {
    constexpr int kUnroll = 1;  // more spills: the kernel is compiled for 168 registers (384 threads)
    const int h = p.rot_dim / 2, groups = h / V, heads = t.cols / p.head_dim;
    const int n = t.rows * heads * groups;
    for (int i0 = t.thread; i0 < n; i0 += kUnroll * t.threads) {
      alignas(16) float c1[kUnroll][V], c2[kUnroll][V], s1[kUnroll][V], s2[kUnroll][V];
      bool on[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int i = i0 + u * t.threads, j = (i % groups) * V, head = (i / groups) % heads, r = i / (groups * heads);
        const std::int64_t gc = t.col0 + head * p.head_dim;
        on[u] = i < n && gc >= p.col_begin && gc < p.col_end;
        if (!on[u]) continue;
        const float* cs = p.cos + (t.row0 + r) * p.ld_cos;
        const float* sn = p.sin + (t.row0 + r) * p.ld_sin;
        copy<V>(c1[u], cs + j), copy<V>(c2[u], cs + j + h), copy<V>(s1[u], sn + j), copy<V>(s2[u], sn + j + h);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (!on[u]) continue;
        const int i = i0 + u * t.threads, j = (i % groups) * V, head = (i / groups) % heads, r = i / (groups * heads);
        float* x = &t.at(r, head * p.head_dim);
        alignas(16) float x1[V], x2[V], y1[V], y2[V];
        copy<V>(x1, x + j), copy<V>(x2, x + j + h);
#pragma unroll
        for (int e = 0; e < V; ++e) {
          y1[e] = x1[e] * c1[u][e] - x2[e] * s1[u][e];
          y2[e] = x2[e] * c2[u][e] + x1[e] * s2[u][e];
        }
        copy<V>(x + j, y1), copy<V>(x + j + h, y2);
      }
    }
  }
};

}  // namespace fusekit::gemm
