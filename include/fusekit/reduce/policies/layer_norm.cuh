// fusekit/reduce/policies/layer_norm.cuh: y = (x - mean) / sqrt(var + eps), then the optional affine.
//
// The variance is computed in two passes over the registers, centered, never as E[x^2] - E[x]^2.
// Both passes sum x - x0, x0 being the row's first element: with a mean of 1e4 and a std of 1 the
// sums then stay near the data's spread instead of 1e4 * N, and the mean never has to be rounded
// to fp32 before it is subtracted (mean = x0 + d is kept as the pair).
#pragma once

#include "fusekit/reduce/row_params.hpp"

namespace fusekit::reduce {

struct LayerNormPolicy {
  static constexpr const char* kName = "layer_norm";
  static constexpr int kStats = 2;  // per-row output: mean, rstd
  static constexpr bool kNeedsEps = true;
  static constexpr bool kTakesWeight = true;
  static constexpr bool kTakesBias = true;

  struct Stats {
    float pivot, shift, rstd;  // mean = pivot + shift
  };

  template <class Row> __device__ static Stats statistics(Row& row, const RowParams& p) {
    const float pivot = row.first();
    const float shift = __fmul_rn(row.sum([pivot](float x) { return x - pivot; }), p.inv_cols);
    const float sum_sq = row.sum([pivot, shift](float x) {
      const float c = (x - pivot) - shift;
      return c * c;
    });
    return {pivot, shift, rsqrtf(__fmul_rn(sum_sq, p.inv_cols) + p.eps)};  // _rn: never contracted with the add
  }
  // ((x - pivot) - shift) * rstd as (x - pivot) * rstd - shift * rstd, one multiply-add: an
  // instruction an element fewer (LayerNorm's rows are issue-bound). Its extra rounding, that of
  // shift * rstd, is an absolute error of at most |shift * rstd| / 2^24, a few ulp of the row's
  // largest output (|shift| is the mean's distance from the row's first element: a few std).
  __device__ static float normalize(float x, const Stats& s) {
    return __fmaf_rn(x - s.pivot, s.rstd, __fmul_rn(-s.shift, s.rstd));
  }
  __device__ static void export_stats(float* out, const Stats& s) {
    out[0] = s.pivot + s.shift;
    out[1] = s.rstd;
  }
};

}  // namespace fusekit::reduce
