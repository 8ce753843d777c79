// fusekit/gemm/epilogue/head_rmsnorm.hpp: per-head RMSNorm, x = x / sqrt(mean(x^2) + eps) * w
// over each head_dim-wide head whose first column lies in [col_begin, col_end). A whole head
// sits in one tile because head_dim divides the 128-column N-tile (validated by callers).
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class T> struct HeadRmsNorm {
  struct Params {
    const T* weight = nullptr;  // [head_dim]; null: this node does nothing
    float eps = 1e-5f;
    int head_dim = 128;
    std::int64_t col_begin = 0, col_end = 0;  // output columns the node applies to
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    if (p.weight == nullptr) return;
    const int lane = t.thread % 32;
    for_each_head_row(t, p.head_dim, [&](int r, int c0) {
      const std::int64_t gc = t.col0 + c0;
      if (gc < p.col_begin || gc >= p.col_end) return;
      float* x = &t.at(r, c0);
      float sum_sq = 0.f;
      for (int c = lane; c < p.head_dim; c += 32) sum_sq += x[c] * x[c];
      const float inv_rms = 1.f / sqrtf(warp_sum(sum_sq) / p.head_dim + p.eps);
      for (int c = lane; c < p.head_dim; c += 32) x[c] = x[c] * inv_rms * to_float(p.weight[c]);
    });
  }
};

}  // namespace fusekit::gemm
