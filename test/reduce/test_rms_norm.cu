// RMSNorm on the GPU: the shared row suite plus residual, weight offset, stats and the H3 adaLN norm.
#include "reduce/row_suite.hpp"

using namespace fusekit;
using namespace fusekit::test;
constexpr RowOp kOp = RowOp::rms_norm;

FUSEKIT_ROW_SUITE("rms_norm", kOp)

GPU_TEST_CASE("rms_norm: phased and general kernels give the same bits") { suite_phased_agree<kOp>(); }
GPU_TEST_CASE("rms_norm: sliced rows with their parameters staged give the same bits") { suite_slice_params<kOp>(); }

// The dispatch's check of the binary (sm90_row_kernels) must accept this sm_90a build on an
// sm_90 GPU, or the cluster and staged kernels would be refused while short rows still pass.
GPU_TEST_CASE("rms_norm: this build's row kernels count as sm_90 code on an sm_90 GPU") {
  DeviceInfo device;
  REQUIRE(current_device(device).ok());
  bool sm90 = false;
  REQUIRE((reduce::sm90_row_kernels<reduce::RmsNormPolicy, bf16_t, bf16_t>(device, sm90)).ok());
  CHECK(sm90 == (device.major >= 9));
}

GPU_TEST_CASE("rms_norm: fused residual, weight offset, stats") {
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t n : {127, 5376, 65537}) {
      RowCase c;
      c.in = c.out = t;
      c.rows = 37;
      c.cols = n;
      c.residual = true;
      c.weight = t;
      c.weight_offset = 1.f;
      c.stats = true;
      check_case<kOp>(c);
      c.residual_in_place = true;  // residual_out is the residual buffer
      c.in_shift = 1;
      check_case<kOp>(c);
      c.residual_shift = 2;  // aligned unlike in: the register kernels take it
      check_case<kOp>(c);
      c.residual_shift = -1;
      c.residual_stride = n + 5;  // residual rows strided unlike in's: every other row aligned unlike it
      check_case<kOp>(c);
      c.residual_in_place = false;  // and residual_out a buffer of its own with that stride
      check_case<kOp>(c);
    }
}

GPU_TEST_CASE("rms_norm: MiniMax-H3 norm1 + adaLN modulation (925 and 4096 tokens x 5376)") {
  for (std::int64_t tokens : {925, 4096}) {
    RowCase c;
    c.in = c.out = DType::bf16;
    c.rows = tokens;
    c.cols = 5376;
    c.weight = DType::bf16;
    c.modulation = true;
    check_case<kOp>(c);
  }
  RowCase bad;  // an index outside the table gives a NaN row, the other rows stay right
  bad.in = bad.out = DType::bf16;
  bad.rows = 37;
  bad.cols = 5376;
  bad.weight = DType::f32;
  bad.modulation = true;
  bad.bad_index = true;
  check_case<kOp>(bad);
}
