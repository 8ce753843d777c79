// fusekit/reduce/policies/rms_norm.cuh: y = x / sqrt(mean(x^2) + eps), then the optional affine.
#pragma once

#include "fusekit/reduce/row_params.hpp"

namespace fusekit::reduce {

struct RmsNormPolicy {
  static constexpr const char* kName = "rms_norm";
  static constexpr int kStats = 1;  // per-row output: rstd
  static constexpr bool kNeedsEps = true;
  static constexpr bool kTakesWeight = true;
  static constexpr bool kTakesBias = false;

  struct Stats {
    float rstd;
  };

  template <class Row> __device__ static Stats statistics(Row& row, const RowParams& p) {
    const float sum_sq = row.sum([](float x) { return x * x; });
    return {rsqrtf(__fmul_rn(sum_sq, p.inv_cols) + p.eps)};  // _rn: never contracted with the add
  }
  __device__ static float normalize(float x, const Stats& s) { return x * s.rstd; }
  __device__ static void export_stats(float* out, const Stats& s) { out[0] = s.rstd; }
};

}  // namespace fusekit::reduce
