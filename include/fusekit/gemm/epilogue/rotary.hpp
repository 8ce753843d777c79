// fusekit/gemm/epilogue/rotary.hpp: rotary embedding, rotate-half convention, on the first
// rot_dim channels of each head_dim-wide head in [col_begin, col_end):
//   x1 = x[0, h), x2 = x[h, 2h) with h = rot_dim / 2;  x <- x * cos + cat(-x2, x1) * sin.
// cos and sin are fp32 [M, rot_dim], one row per token; channels past rot_dim pass through.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

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
    const int h = p.rot_dim / 2, heads = t.cols / p.head_dim;
    const int n = t.rows * heads * h;
    for (int i = t.thread; i < n; i += t.threads) {  // one thread per (x1, x2) pair
      const int j = i % h, head = (i / h) % heads, r = i / (h * heads);
      const int c0 = head * p.head_dim;
      const std::int64_t gc = t.col0 + c0;
      if (gc < p.col_begin || gc >= p.col_end) continue;
      const float* cs = p.cos + (t.row0 + r) * p.ld_cos;
      const float* sn = p.sin + (t.row0 + r) * p.ld_sin;
      float* x = &t.at(r, c0);
      const float x1 = x[j], x2 = x[j + h];
      x[j] = x1 * cs[j] - x2 * sn[j];
      x[j + h] = x2 * cs[j + h] + x1 * sn[j + h];
    }
  }
};

}  // namespace fusekit::gemm
