// LayerNorm on the GPU: the shared row suite plus affine, stats, residual and cancellation.
#include "reduce/row_suite.hpp"

using namespace fusekit;
using namespace fusekit::test;
constexpr RowOp kOp = RowOp::layer_norm;

FUSEKIT_ROW_SUITE("layer_norm", kOp)

GPU_TEST_CASE("layer_norm: phased and general kernels give the same bits") { suite_phased_agree<kOp>(); }
GPU_TEST_CASE("layer_norm: sliced rows with their parameters staged give the same bits") { suite_slice_params<kOp>(); }

GPU_TEST_CASE("layer_norm: weight, bias, stats, residual") {
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t n : {3, 1537, 4097, 8192, 100000}) {
      RowCase c;
      c.in = c.out = t;
      c.rows = 37;
      c.cols = n;
      c.weight = DType::f32;
      c.bias = true;
      c.stats = true;
      check_case<kOp>(c);
      c.residual = true;
      c.weight = t;
      check_case<kOp>(c);
      // residual_out is the residual buffer: every read of a row (LayerNorm's pivot, column 0,
      // included) must come before any thread of the row writes it.
      c.residual_in_place = true;
      check_case<kOp>(c);
      c.in_shift = 1;
      check_case<kOp>(c);
      c.residual_shift = 2;  // aligned unlike in
      check_case<kOp>(c);
      c.residual_shift = -1;
      c.residual_stride = n + 5;  // residual rows strided unlike in's
      check_case<kOp>(c);
    }
}

GPU_TEST_CASE("layer_norm: rows with mean 1e4 and std 1 stay accurate in f32") {
  for (std::int64_t n : {1537, 4096, 65537}) {
    RowCase c;
    c.rows = 37;
    c.cols = n;
    c.fill = Fill::big_mean;
    c.stats = true;
    const RowRun r = check_case<kOp>(c);
    MESSAGE("N=" << n << " max error / bound = " << r.max_scaled_error);
  }
}

// Rows whose mean is far from their first element (the pivot the two passes sum against) and whose
// blocks sit far apart: each kernel's partial sums of x - x0 run to 1e3-1e9 before they cancel.
GPU_TEST_CASE("layer_norm: rows of +-1e3 block means with an outlying first element") {
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t n : {3, 1537, 8192, 65537, 262144}) {
      RowCase c = shaped_case(t, t, 37, n);
      c.fill = Fill::block_means;
      c.stats = true;
      const RowRun r = check_case<kOp>(c);
      MESSAGE(dtype_name(t) << " N=" << n << " max error / bound = " << r.max_scaled_error);
    }
}
