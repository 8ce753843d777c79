// Softmax on the GPU: the shared row suite plus -inf and NaN rows and the exported max/sum.
#include "reduce/row_suite.hpp"

using namespace fusekit;
using namespace fusekit::test;
constexpr RowOp kOp = RowOp::softmax;

FUSEKIT_ROW_SUITE("softmax", kOp)

// 65537 and 262144: rows over a cluster of 2-4 and of 16 CTAs, which combine (max, sum) pairs.
GPU_TEST_CASE("softmax: all -inf rows give NaN, partly -inf rows are exact, NaN propagates, stats") {
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t n : {5, 1537, 65537, 262144}) {
      RowCase c;
      c.in = c.out = t;
      c.rows = 37;
      c.cols = n;
      c.stats = true;
      c.fill = Fill::neg_inf_rows;
      check_case<kOp>(c);
      c.fill = Fill::nan_rows;
      check_case<kOp>(c);
      c.fill = Fill::masked_tail;
      check_case<kOp>(c);
    }
}
