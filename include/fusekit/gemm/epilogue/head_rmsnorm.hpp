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
    if (p.weight == nullptr || t.col0 >= p.col_end || t.col0 + t.cols <= p.col_begin) return;  // no head of ours here
    constexpr int kMaxPerLane = 4;  // head_dim <= 128 (it divides the 128-column tile)
    const int lane = t.thread % 32, per_lane = p.head_dim / 32 > 0 ? p.head_dim / 32 : 1;
    // The weights are the same for every (row, head): read them once into registers.
    float w[kMaxPerLane];
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      const int c = lane + 32 * i;
      w[i] = i < per_lane && c < p.head_dim ? to_float(p.weight[c]) : 0.f;
    }
    for_each_head_row(t, p.head_dim, [&](int r, int c0) {
      const std::int64_t gc = t.col0 + c0;
      if (gc < p.col_begin || gc >= p.col_end) return;
      float* x = &t.at(r, c0);
      float v[kMaxPerLane], sum_sq = 0.f;
#pragma unroll
      for (int i = 0; i < kMaxPerLane; ++i) {
        const int c = lane + 32 * i;
        v[i] = i < per_lane && c < p.head_dim ? x[c] : 0.f;
        sum_sq += v[i] * v[i];
      }
      const float inv_rms = 1.f / sqrtf(warp_sum(sum_sq) / p.head_dim + p.eps);
#pragma unroll
      for (int i = 0; i < kMaxPerLane; ++i) {
        const int c = lane + 32 * i;
        if (i < per_lane && c < p.head_dim) x[c] = v[i] * inv_rms * w[i];
      }
    });
  }
};

}  // namespace fusekit::gemm
