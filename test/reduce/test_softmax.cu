// Softmax on the GPU: the shared row suite plus -inf and NaN rows and the exported max/sum.
#include "reduce/row_suite.hpp"

using namespace fusekit;
using namespace fusekit::test;
constexpr RowOp kOp = RowOp::softmax;

GPU_TEST_CASE("softmax: seed shapes in f32, f16, bf16") { suite_seed_shapes<kOp>(); }
GPU_TEST_CASE("softmax: N from 1 to 262144, M from 0 to 4096") { suite_sizes<kOp>(); }
GPU_TEST_CASE("softmax: strides, misaligned pointers, in place, mixed dtypes") { suite_layouts<kOp>(); }
GPU_TEST_CASE("softmax: bitwise repeatable and batch invariant") { suite_repeatable<kOp>(); }
GPU_TEST_CASE("softmax: rejected calls write nothing") { suite_rejects<kOp>(); }

GPU_TEST_CASE("softmax: all -inf rows give NaN, partly -inf rows are exact, NaN propagates, stats") {
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t n : {5, 1537, 65537}) {
      RowCase c;
      c.in = c.out = t;
      c.rows = 37;
      c.cols = n;
      c.stats = true;
      c.fill = Fill::neg_inf_rows;
      check_case<kOp>(c);
      c.fill = Fill::nan_rows;
      check_case<kOp>(c);
    }
}
