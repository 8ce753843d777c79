// fusekit/reduce/policies/softmax.cuh: y = exp(x - max) / sum(exp(x - max)).
//
// exp is taken as exp2 of log2(e)-scaled differences. A row that is all -inf gives NaN (as torch
// does: the max is -inf and -inf - -inf is NaN); -inf entries in other rows give exact zeros; a NaN
// anywhere in a row makes the sum, and so the whole row, NaN.
#pragma once

#include "fusekit/core/vector_io.cuh"
#include "fusekit/reduce/row_params.hpp"

namespace fusekit::reduce {

struct SoftmaxPolicy {
  static constexpr const char* kName = "softmax";
  static constexpr int kStats = 2;  // per-row output: max, sum of exp(x - max)
  static constexpr bool kNeedsEps = false;
  static constexpr bool kTakesWeight = false;
  static constexpr bool kTakesBias = false;
  static constexpr float kLog2e = 1.4426950408889634f;

  struct Stats {
    float max, sum, inv_sum;
  };

  // x - max is exact near the max (where the large outputs are), so only the product is rounded.
  __device__ static float scaled_exp(float x, float max) { return fast_exp2((x - max) * kLog2e); }

  template <class Row> __device__ static Stats statistics(Row& row, const RowParams&) {
    const float max = row.max([](float x) { return x; });
    const float sum = row.sum([max](float x) { return scaled_exp(x, max); });
    return {max, sum, 1.f / sum};
  }
  __device__ static float normalize(float x, const Stats& s) { return scaled_exp(x, s.max) * s.inv_sum; }
  __device__ static void export_stats(float* out, const Stats& s) {
    out[0] = s.max;
    out[1] = s.sum;
  }
};

}  // namespace fusekit::reduce
