// fusekit/reduce/policies/softmax.cuh: y = exp(x - max) / sum(exp(x - max)).
//
// exp is taken as exp2 of log2(e)-scaled differences. A row that is all -inf gives NaN (as torch
// does: the max is -inf and -inf - -inf is NaN); -inf entries in other rows give exact zeros; a NaN
// anywhere in a row makes the sum, and so the whole row, NaN.
#pragma once

#include "fusekit/core/vector_io.cuh"
#include "fusekit/reduce/row_params.hpp"
#include "fusekit/reduce/row_reducer.cuh"

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

  // A partial of a row: its max, and its sum of exp(x - max) (RowReducer::all_reduce_pair).
  struct MaxAndSum {
    using First = MaxOp;
    __device__ static float2 identity() { return {-INFINITY, -0.f}; }
    // A sum taken against the max `from`, against `to` >= from instead (from == to: both -inf, too).
    // __fmul_rn: rounded alone, never fused into the add that follows (RowReducer::lanes_pair).
    __device__ static float rescale(float sum, float from, float to) {
      return from == to ? sum : __fmul_rn(sum, fast_exp2((from - to) * kLog2e));
    }
  };

  template <class Row> __device__ static Stats statistics(Row& row, const RowParams&) {
    if constexpr (Row::kSpansCluster) {
      // One cluster exchange instead of two: each thread's max and its sum against that max, then
      // the pairs over the row. The bits differ from the two passes' (one rounding more a term),
      // and are the same for every row of this N and dtype.
      const float own_max = row.template thread_reduce<MaxOp>([](float x) { return x; });
      const float pivot = own_max == -INFINITY ? 0.f : own_max;  // a thread of only -inf entries (or none) sums zeros
      const float own_sum = row.template thread_reduce<SumOp>([pivot](float x) { return scaled_exp(x, pivot); });
      const float2 pair = row.template all_reduce_pair<MaxAndSum>({own_max, own_sum});
      // A row whose max is -inf: NaN, as the two passes' exp(-inf - -inf) (and torch) give.
      const float sum = pair.x == -INFINITY ? __int_as_float(0x7fffffff) : pair.y;
      return {pair.x, sum, 1.f / sum};
    } else {
      const float max = row.max([](float x) { return x; });
      const float sum = row.sum([max](float x) { return scaled_exp(x, max); });
      return {max, sum, 1.f / sum};
    }
  }
  __device__ static float normalize(float x, const Stats& s) { return scaled_exp(x, s.max) * s.inv_sum; }
  __device__ static void export_stats(float* out, const Stats& s) {
    out[0] = s.max;
    out[1] = s.sum;
  }
};

}  // namespace fusekit::reduce
