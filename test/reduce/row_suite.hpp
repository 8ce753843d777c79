// The test list every row op goes through; each op's translation unit instantiates it once.
#pragma once

#include "reduce/row_case.hpp"
#include "support/restore.hpp"

#include <cstring>

namespace fusekit::test {

template <RowOp kOp> RowRun check_case(const RowCase& c, std::uint64_t seed = fresh_seed()) {
  INFO("case: " << std::string(dtype_name(c.in)) << "->" << std::string(dtype_name(c.out)) << " " << c.rows << "x" << c.cols
                << " strides " << c.in_stride << "/" << c.out_stride << " shifts " << c.in_shift << "/"
                << c.out_shift << " in_place " << c.in_place << " seed " << seed);
  RowRun r = run_row_case<kOp>(c, seed);
  REQUIRE_MESSAGE(r.status.ok(), r.status.to_string());
  CHECK(r.unwritten == 0);
  CHECK(r.residual_mismatch == 0);
  CHECK(r.max_scaled_error <= 1.0);
  return r;
}

// The seed audit's four shapes in every dtype.
template <RowOp kOp> void suite_seed_shapes() {
  const std::int64_t shapes[][2] = {{37, 1537}, {256, 3072}, {768, 6144}, {1024, 4096}};
  for (const auto& [m, n] : shapes)
    for (DType t : {DType::f32, DType::f16, DType::bf16}) {
      RowCase c;
      c.in = c.out = t;
      c.rows = m;
      c.cols = n;
      check_case<kOp>(c);
    }
}

// Row lengths across every layout (sub-warp, warps, block, cluster) and row counts up to 4096.
template <RowOp kOp> void suite_sizes() {
  const std::int64_t lengths[] = {1, 2, 3, 7, 127, 128, 1537, 4097, 5376, 65537, 262144};
  const std::int64_t counts[] = {0, 1, 37, 4096};
  const DType types[] = {DType::f32, DType::bf16, DType::f16};
  int k = 0;
  for (std::int64_t n : lengths)
    for (std::int64_t m : counts) {
      if (m == 4096 && n > 5376) m = 8;  // keeps the host reference fast; 8 rows of a long row still fill clusters
      RowCase c;
      c.in = c.out = types[k++ % 3];
      c.rows = m;
      c.cols = n;
      check_case<kOp>(c);
    }
  RowCase longest;  // the stated maximum row length runs; one more is rejected (suite_rejects)
  longest.in = longest.out = DType::bf16;
  longest.rows = 2;
  longest.cols = reduce::max_cols(DType::bf16);
  check_case<kOp>(longest);
  longest.in_shift = 1;  // misaligned: the widest span of vectors a row can take (why max_cols is one short)
  longest.out_shift = 1;
  check_case<kOp>(longest);
}

// Strides, misaligned pointers, in place, mixed dtypes, on a length of every layout. N = 4096
// and 16384 fill their layouts exactly when aligned (bf16: 256 threads x 2 and x 8 vectors; f32
// 4096: 256 x 4), so their misaligned rows take the general agent's spilled vector; N = 1 to 3
// are shorter than a vector; 65537 splits over a cluster (or slices) with a one-element tail.
template <RowOp kOp> void suite_layouts() {
  for (std::int64_t n : {1, 2, 3, 7, 127, 128, 1537, 4096, 5376, 16384, 40000, 65537}) {
    RowCase c;
    c.rows = 37;
    c.cols = n;
    for (DType t : {DType::f32, DType::bf16}) {
      c.in = c.out = t;
      c.in_stride = n + 3;
      c.out_stride = n + 11;
      check_case<kOp>(c);  // strided: padding must stay untouched
      c.in_stride = c.out_stride = 0;
      c.in_shift = 1;
      c.out_shift = 3;
      check_case<kOp>(c);  // misaligned, differently for in and out
      c.out_shift = 1;
      check_case<kOp>(c);  // misaligned alike
      c.in_shift = c.out_shift = 0;
      c.in_place = true;
      check_case<kOp>(c);
      c.in_place = false;
    }
    c.in = DType::f32;
    c.out = DType::bf16;
    check_case<kOp>(c);
    c.in = DType::bf16;
    c.out = DType::f32;
    check_case<kOp>(c);
  }
}

// Two runs give the same bits, and a row gives the same bits alone as inside a big call.
template <RowOp kOp> void suite_repeatable() {
  for (std::int64_t n : {3, 1537, 5376, 12000, 65537}) {  // 12000: the staged kernel (24 KB rows)
    RowCase c;
    c.in = c.out = DType::bf16;
    c.rows = n > 8192 ? 37 : 4096;
    c.cols = n;
    c.in_shift = 1;  // rows of an odd-width matrix start at every alignment
    const std::uint64_t seed = fresh_seed();
    const RowRun a = run_row_case<kOp>(c, seed);
    const RowRun b = run_row_case<kOp>(c, seed);
    REQUIRE(a.status.ok());
    CHECK_MESSAGE(a.out_bytes == b.out_bytes, "not bitwise repeatable at N=" << n);
    for (std::int64_t row : {std::int64_t(0), std::int64_t(1), c.rows - 1}) {
      const RowRun alone = run_row_case<kOp>(c, seed, row, 1);
      REQUIRE(alone.status.ok());
      const std::size_t bytes = std::size_t(n) * 2, offset = std::size_t(row * n) * 2;
      CHECK_MESSAGE(std::memcmp(a.out_bytes.data() + offset, alone.out_bytes.data() + offset, bytes) == 0,
                    "row " << row << " of N=" << n << " differs alone vs among " << c.rows << " rows");
    }
  }
}

// The staged kernel (sm_90+) and the register kernels give the same bits wherever both can run a
// row in one CTA, so the dispatch may choose by speed; each forced way is also checked against
// float64, slices over a cluster and the register kernels' clusters included.
template <RowOp kOp> void suite_kernels_agree() {
  struct Shape {
    DType in, out;
    std::int64_t rows, cols;
    std::size_t shift;
    bool residual;
    DType weight;
    std::size_t param_shift;  // RowCase::param_shift: the weight and bias not aligned like the rows
  };
  const Shape shapes[] = {
      {DType::bf16, DType::bf16, 37, 1537, 1, false, DType::bf16, 0}, {DType::f32, DType::f32, 300, 4096, 0, false, DType::bf16, 0},
      {DType::bf16, DType::bf16, 600, 5376, 0, true, DType::f32, 0},  {DType::bf16, DType::f32, 37, 6144, 3, true, DType::bf16, 1},
      {DType::f32, DType::bf16, 129, 1024, 2, false, DType::f32, 0},  {DType::bf16, DType::bf16, 16, 16384, 0, true, DType::bf16, 0},
      {DType::f32, DType::f32, 8, 16384, 0, false, DType::f32, 0},    {DType::bf16, DType::bf16, 600, 5000, 5, true, DType::bf16, 3},
      {DType::f32, DType::f32, 100, 12000, 1, false, DType::f32, 2}, {DType::bf16, DType::bf16, 5, 40000, 1, true, DType::bf16, 0},
      {DType::f32, DType::bf16, 3, 100003, 2, false, DType::f32, 1}};  // the last two: slices over a cluster
  const RestoreOnExit restore(reduce::row_kernel_choice());
  for (const Shape& sh : shapes) {
    RowCase c = shaped_case(sh.in, sh.out, sh.rows, sh.cols);
    c.in_shift = c.out_shift = sh.shift;
    if constexpr (kOp != RowOp::softmax) {
      c.residual = sh.residual;
      c.weight = sh.weight;
      c.param_shift = sh.param_shift;
      c.stats = true;
      if constexpr (kOp == RowOp::layer_norm) c.bias = true;
      if constexpr (kOp == RowOp::rms_norm) c.modulation = sh.rows > 100;
    }
    const std::uint64_t seed = fresh_seed();
    reduce::row_kernel_choice() = reduce::RowKernel::automatic;
    const RowRun automatic = check_case<kOp>(c, seed);
    reduce::row_kernel_choice() = reduce::RowKernel::staged;
    const RowRun staged = check_case<kOp>(c, seed);
    reduce::row_kernel_choice() = reduce::RowKernel::registers;
    const RowRun registers = check_case<kOp>(c, seed);
    INFO("N " << sh.cols << " rows " << sh.rows << " " << dtype_name(sh.in) << "->" << dtype_name(sh.out));
    CHECK(staged.out_bytes == automatic.out_bytes);
    CHECK(staged.residual_out_bytes == automatic.residual_out_bytes);
    if (reduce::registers_match_staged(sh.cols, sh.in)) {
      CHECK_MESSAGE(staged.out_bytes == registers.out_bytes, "staged and register kernels differ");
      CHECK(staged.residual_out_bytes == registers.residual_out_bytes);
    }
  }
}

// Calls that depend on each other: three in-place calls queued on one stream, each reading what the
// previous one wrote, against the same three calls with a synchronize after each, bitwise; with
// every cluster-launch overlap (PDL) setting, cluster rows (one wave and several) included.
template <RowOp kOp> void suite_dependent_chain() {
  struct Shape {
    DType t;
    std::int64_t rows, cols;
  };
  const Shape shapes[] = {{DType::bf16, 8, 262144}, {DType::f32, 40, 65536}, {DType::bf16, 300, 1537}};
  const RestoreOnExit restore(reduce::cluster_overlap());
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const Shape& sh : shapes)
    for (auto overlap : {reduce::ClusterOverlap::never, reduce::ClusterOverlap::one_wave, reduce::ClusterOverlap::always}) {
      reduce::cluster_overlap() = overlap;
      INFO("N " << sh.cols << " rows " << sh.rows << " overlap " << int(overlap));
      const std::size_t n = std::size_t(sh.rows * sh.cols);
      HostArray h(sh.t, n);
      std::mt19937_64 rng(fresh_seed());
      std::normal_distribution<double> normal(0.0, 2.0);
      for (std::size_t i = 0; i < n; ++i) h.set(i, normal(rng));
      DeviceBuffer chained(h.bytes()), synced(h.bytes());
      chained.upload(h.data());
      synced.upload(h.data());
      auto call = [&](const DeviceBuffer& b, cudaStream_t s) {
        const Status st = call_row_op<kOp>({b.get(), sh.t, sh.rows, sh.cols, 0}, {b.get(), sh.t, sh.rows, sh.cols, 0}, {}, s);
        REQUIRE_MESSAGE(st.ok(), st.to_string());
      };
      for (int k = 0; k < 3; ++k) call(chained, stream);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaStreamSynchronize(stream));
      for (int k = 0; k < 3; ++k) {
        call(synced, stream);
        CHECK_LAUNCH();
      }
      HostArray a(sh.t, n), b(sh.t, n);
      chained.download(a.data());
      synced.download(b.data());
      CHECK_MESSAGE(std::memcmp(a.data(), b.data(), a.bytes()) == 0, "a queued chain differs from a synchronized one");
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// The options a norm's write loop takes (the aligned and phased kernels compile a loop for each
// common set and test the options per vector for the rest).
struct NormOptionSet {
  const char* name;
  bool weight, bias, modulation, bad_index;
  float weight_offset;
};

// Whether an option set only repeats another for this op: RMSNorm takes no bias, so without the
// modulation "bias" is "none" and "weight, bias" is "weight".
template <RowOp kOp> bool repeats_another(const NormOptionSet& opt) {
  return kOp != RowOp::layer_norm && opt.bias && !opt.modulation;
}

// c with a residual, the stats and the options of `opt`, the parameters and table in dtype t.
template <RowOp kOp> void apply_norm_options(RowCase& c, const NormOptionSet& opt, DType t) {
  c.residual = true;
  if (opt.weight) c.weight = t;
  c.param_dtype = t;
  c.weight_offset = opt.weight_offset;
  c.stats = true;
  c.bias = kOp == RowOp::layer_norm && opt.bias;
  c.modulation = opt.modulation;
  c.bad_index = opt.bad_index;  // row 1: NaN on every path
}

// The register kernels' test-free path (every row and parameter vector-aligned: RowParams::
// vectors_aligned) and their general path give the same bits: the same rows, once aligned, once
// with output rows off their alignment (a stride of cols + 1; 16-bit rows then take the phased
// kernels, suite_phased_agree) and once with the parameters off theirs (the general kernels). (Input rows off their alignment are laid out differently over the threads, so they are
// summed in another order: that is the batch-invariance test's business, not this one's.) Over
// every option set: the aligned kernels compile a write loop for each common one (no options,
// weight, weight and bias, modulation, weight and modulation) and test the options per vector for
// the rest (a weight offset, a bad table index). 16-bit rows of 1024 and 2048 go four and two a
// CTA where the call has two CTAs an SM of them (rows sized from the SM count: 8 x 132 + 7 on an
// H200), and their aligned kernels with parameters share them (CtaRows::sharing, asserted from the
// call's plan; rows 8s + 7, 8s + 5 and 4s + 1 leave the last CTA's rows 3, 1 and 1 inside the
// matrix, so row 0 reads the others' chunks): the same bits as with each row holding its own.
template <RowOp kOp> void suite_paths_agree() {
  struct Shape {
    DType in, out;
    std::int64_t rows, cols;
    bool shares = false;  // the aligned kernels share the CTA's parameters
  };
  const int sms = gpu_state().sm_count;
  const std::int64_t four_a_cta = 8 * std::int64_t(sms), two_a_cta = 4 * std::int64_t(sms);
  const Shape shapes[] = {{DType::bf16, DType::bf16, 300, 256},  {DType::bf16, DType::bf16, 64, 4096},
                          {DType::bf16, DType::f32, 37, 6144},   {DType::f32, DType::f32, 129, 1024},
                          {DType::f32, DType::bf16, 16, 4096},   {DType::f16, DType::f16, 8, 8192},
                          {DType::bf16, DType::bf16, 4, 65536},  {DType::f32, DType::f32, 2, 262144},  // clusters
                          {DType::bf16, DType::bf16, four_a_cta + 7, 1024, true}, {DType::f16, DType::f16, four_a_cta + 7, 1024, true},
                          {DType::bf16, DType::bf16, four_a_cta + 5, 1024, true}, {DType::bf16, DType::f32, two_a_cta + 1, 2048, true}};
  const NormOptionSet option_sets[] = {{"none", false, false, false, false, 0.f},
                                       {"weight", true, false, false, false, 0.f},
                                       {"weight, bias", true, true, false, false, 0.f},
                                       {"modulation", false, false, true, false, 0.f},
                                       {"weight, modulation", true, false, true, false, 0.f},
                                       {"weight, bias, modulation, a bad index", true, true, true, true, 0.f},
                                       {"weight offset, modulation", true, false, true, false, 1.f}};
  const RestoreOnExit restore(reduce::row_param_sharing());
  for (const Shape& sh : shapes)
    for (const NormOptionSet& opt : option_sets) {
      if (kOp == RowOp::softmax && (opt.weight || opt.modulation)) continue;  // softmax takes no options
      if (repeats_another<kOp>(opt)) continue;
      RowCase c = shaped_case(sh.in, sh.out, sh.rows, sh.cols);
      // The parameters and table in the rows' dtype, as the aligned path needs.
      if constexpr (kOp != RowOp::softmax) apply_norm_options<kOp>(c, opt, sh.in);
      INFO("N " << sh.cols << " rows " << sh.rows << " " << std::string(dtype_name(sh.in)) << "->"
                << std::string(dtype_name(sh.out)) << " options: " << std::string(opt.name));
      const std::uint64_t seed = fresh_seed();
      reduce::row_param_sharing() = reduce::ParamSharing::all;
      const RowRun aligned = check_case<kOp>(c, seed);
      REQUIRE(aligned.vectors_aligned);  // else both runs below would take the general path
      if constexpr (kOp != RowOp::softmax) {
        if (sh.shares && (opt.weight || opt.bias)) REQUIRE(aligned.plan.cta_rows == reduce::CtaRows::sharing);
        // (phased differs from all on the aligned kernels only: the runs below are not aligned.)
        reduce::row_param_sharing() = reduce::ParamSharing::phased;
        const RowRun unshared = check_case<kOp>(c, seed);
        REQUIRE(unshared.plan.cta_rows != reduce::CtaRows::sharing);
        CHECK_MESSAGE(aligned.out_bytes == unshared.out_bytes, "aligned kernels with and without shared parameters differ");
      }
      RowCase out_off = c;
      out_off.out_stride = c.cols + 1;
      const RowRun unaligned = check_case<kOp>(out_off, seed);
      CHECK_FALSE(unaligned.vectors_aligned);
      const std::size_t row_bytes = std::size_t(c.cols) * dtype_size(c.out);
      for (std::int64_t r = 0; r < c.rows; ++r)
        if (std::memcmp(aligned.out_bytes.data() + std::size_t(r) * row_bytes,
                        unaligned.out_bytes.data() + std::size_t(r) * (row_bytes + dtype_size(c.out)), row_bytes) != 0)
          FAIL_CHECK("aligned and unaligned paths differ (output rows off) in row " << r);
      if constexpr (kOp != RowOp::softmax) {
        CHECK(aligned.residual_out_bytes == unaligned.residual_out_bytes);
        if (!opt.weight) continue;  // param_shift moves the weight and bias only
        RowCase params_off = c;
        params_off.param_shift = 1;
        const RowRun general_params = check_case<kOp>(params_off, seed);
        CHECK_FALSE(general_params.vectors_aligned);
        CHECK_MESSAGE(aligned.out_bytes == general_params.out_bytes, "aligned and general paths differ (params off)");
      }
    }
  // f32 rows written as bf16 need 8-byte output rows only: a stride of 4100 elements keeps the
  // test-free path with output rows 8 bytes off a 16-byte boundary.
  RowCase narrow = shaped_case(DType::f32, DType::bf16, 16, 4096);
  narrow.out_stride = 4100;
  CHECK(check_case<kOp>(narrow).vectors_aligned);
}

// Rows `shift` elements past an alignment boundary (input and output), in place or not.
struct ShiftedShape {
  DType in, out;
  std::int64_t rows, cols;
  std::size_t shift;
  bool in_place;
};

// 16-bit rows off their alignment with parameters in the rows' dtype and vector-aligned take the
// phased kernels (parameter vectors read as the two aligned words they straddle), with or without
// the parameters prefetched; the general kernels (reduce::phased_rows() off) give the same bits.
// Every layout (sub-warp, warps, block, wide; N = 4096 and 16384 misaligned take the spilled
// vector), rows at every alignment (odd N) or all at one, every option set of the aligned paths'
// test. With odd N the modulation table's rows sit off 16 bytes (row_case.hpp), so those calls
// take the general kernels whatever the choice. (The norms' test files declare it: softmax has no
// parameters, so no phased kernels.)
template <RowOp kOp> void suite_phased_agree() {
  static_assert(kOp != RowOp::softmax, "softmax takes no parameters");
  // 4s + 72 x 1537 (s SMs; 600 = 37 groups of 16 and 8 rows more on 132): two rows a CTA, which
  // take rows of one phase and share their parameters (CtaRows::one_phase).
  const int sms = gpu_state().sm_count;
  const std::int64_t two_a_cta = 4 * std::int64_t(sms) + 72;
  const ShiftedShape shapes[] = {{DType::bf16, DType::bf16, two_a_cta, 1537, 1, false}, {DType::bf16, DType::f32, two_a_cta, 1537, 0, false},
                          {DType::bf16, DType::bf16, two_a_cta, 1537, 0, true},
                          {DType::bf16, DType::bf16, 300, 1537, 1, false}, {DType::bf16, DType::bf16, 37, 1537, 0, true},
                          {DType::bf16, DType::bf16, 64, 4096, 3, false},  {DType::f16, DType::f16, 37, 5376, 5, false},
                          {DType::bf16, DType::f32, 16, 16384, 1, false},  {DType::bf16, DType::bf16, 300, 100, 1, true},
                          {DType::f16, DType::f16, 129, 6, 1, false}};
  const NormOptionSet option_sets[] = {{"none", false, false, false, false, 0.f},
                                       {"weight", true, false, false, false, 0.f},
                                       {"bias", false, true, false, false, 0.f},
                                       {"weight, bias", true, true, false, false, 0.f},
                                       {"modulation", false, false, true, false, 0.f},
                                       {"weight, modulation", true, false, true, false, 0.f},
                                       {"weight, bias, modulation, a bad index", true, true, true, true, 0.f},
                                       {"weight offset", true, false, false, false, 1.f}};
  const RestoreOnExit restore(reduce::phased_rows());
  const RestoreOnExit restore_share(reduce::row_param_sharing());
  int one_phase_runs = 0;
  for (const ShiftedShape& sh : shapes)
    for (const NormOptionSet& opt : option_sets) {
      if (repeats_another<kOp>(opt)) continue;
      RowCase c = shaped_case(sh.in, sh.out, sh.rows, sh.cols);
      c.in_shift = c.out_shift = sh.shift;
      c.in_place = sh.in_place;
      c.exact_params = true;  // the weight and bias end where their allocations do: memcheck sees an over-read
      apply_norm_options<kOp>(c, opt, sh.in);
      INFO("N " << sh.cols << " rows " << sh.rows << " shift " << sh.shift << " in place " << sh.in_place << " "
                << std::string(dtype_name(sh.in)) << "->" << std::string(dtype_name(sh.out))
                << " options: " << std::string(opt.name));
      const std::uint64_t seed = fresh_seed();
      reduce::phased_rows() = reduce::PhasedRows::on;
      reduce::row_param_sharing() = reduce::ParamSharing::all;
      const RowRun phased = check_case<kOp>(c, seed);
      CHECK_FALSE(phased.vectors_aligned);
      CHECK(phased.params_aligned == !(opt.modulation && sh.cols % 8 != 0));
      const bool shares = (opt.weight || opt.bias) && phased.plan.config.shape == reduce::RowShape::warps &&
                          phased.plan.rows_per_cta > 1 && !reduce::kRowPhasedHolds;
      if (phased.params_aligned) {
        CHECK(phased.plan.alignment == reduce::RowAlignment::phased);
        if (shares) CHECK(phased.plan.cta_rows == reduce::CtaRows::one_phase);
        one_phase_runs += phased.plan.cta_rows == reduce::CtaRows::one_phase;
      }
      reduce::row_param_sharing() = reduce::ParamSharing::none;
      const RowRun unshared = check_case<kOp>(c, seed);
      CHECK(unshared.plan.cta_rows != reduce::CtaRows::one_phase);
      reduce::phased_rows() = reduce::PhasedRows::prefetch;
      const RowRun prefetched = check_case<kOp>(c, seed);
      reduce::phased_rows() = reduce::PhasedRows::off;
      const RowRun general = check_case<kOp>(c, seed);
      CHECK(general.plan.alignment == reduce::RowAlignment::general);
      CHECK_MESSAGE(phased.out_bytes == general.out_bytes, "phased and general kernels differ");
      CHECK_MESSAGE(unshared.out_bytes == general.out_bytes, "phased kernels without shared parameters and general differ");
      CHECK_MESSAGE(prefetched.out_bytes == general.out_bytes, "phased kernels with prefetch and general differ");
      CHECK(phased.residual_out_bytes == general.residual_out_bytes);
      CHECK(unshared.residual_out_bytes == general.residual_out_bytes);
      CHECK(prefetched.residual_out_bytes == general.residual_out_bytes);
    }
  if (!reduce::kRowPhasedHolds)  // (a build whose phased kernels hold their parameters has none that share)
    CHECK_MESSAGE(one_phase_runs > 0, "no shape reached the phased kernels that share their parameters");
}

// Calls of few rows give each row's CTA helpers for its write pass (reduce::row_write_helpers(),
// RowAgent's kHelped): the same bits as without, on the aligned and phased kernels (16-bit rows
// of two chunks on at most 128 threads), in place or not, over every option set; float64-checked,
// every element written (check_case). Each shape is asserted to qualify (its 16-bit misaligned
// softmax rows take the general kernels, which have no helpers: the same bits trivially).
template <RowOp kOp> void suite_helpers_agree() {
  const ShiftedShape shapes[] = {{DType::bf16, DType::bf16, 37, 1537, 1, false}, {DType::bf16, DType::bf16, 37, 1537, 0, true},
                          {DType::bf16, DType::bf16, 37, 1536, 0, false}, {DType::f16, DType::f16, 5, 2048, 0, true},
                          {DType::bf16, DType::f32, 1, 1100, 3, false},   {DType::bf16, DType::bf16, 96, 1024, 0, false},
                          {DType::f16, DType::f16, 3, 1537, 7, false}};
  const NormOptionSet option_sets[] = {{"none", false, false, false, false, 0.f},
                                       {"weight", true, false, false, false, 0.f},
                                       {"weight, bias", true, true, false, false, 0.f},
                                       {"weight, modulation", true, false, true, false, 0.f},
                                       {"weight, bias, modulation, a bad index", true, true, true, true, 0.f},
                                       {"weight offset", true, false, false, false, 1.f}};
  const RestoreOnExit restore(reduce::row_write_helpers());
  const int sm_count = gpu_state().sm_count;
  int helped_runs = 0;
  for (const ShiftedShape& sh : shapes) {
    const reduce::RowConfig cfg = reduce::select_row_config(sh.cols, sh.in);
    reduce::row_write_helpers() = true;  // (the last option set's second run left them off)
    REQUIRE(reduce::takes_helpers(sh.in, cfg, sh.rows, reduce::rows_per_cta(cfg, sh.rows, sm_count), sm_count));
    for (const NormOptionSet& opt : option_sets) {
      if (kOp == RowOp::softmax && (opt.weight || opt.modulation)) continue;  // softmax takes no options
      if (repeats_another<kOp>(opt)) continue;
      RowCase c = shaped_case(sh.in, sh.out, sh.rows, sh.cols);
      c.in_shift = c.out_shift = sh.shift;
      c.in_place = sh.in_place && sh.in == sh.out;
      c.exact_params = true;
      if constexpr (kOp != RowOp::softmax) apply_norm_options<kOp>(c, opt, sh.in);
      INFO("N " << sh.cols << " rows " << sh.rows << " shift " << sh.shift << " in place " << c.in_place << " "
                << std::string(dtype_name(sh.in)) << "->" << std::string(dtype_name(sh.out))
                << " options: " << std::string(opt.name));
      const std::uint64_t seed = fresh_seed();
      reduce::row_write_helpers() = true;
      const RowRun helped = check_case<kOp>(c, seed);
      reduce::row_write_helpers() = false;
      const RowRun alone = check_case<kOp>(c, seed);
      CHECK(alone.plan.cta_rows != reduce::CtaRows::helped);
      if (helped.plan.alignment != reduce::RowAlignment::general) CHECK(helped.plan.cta_rows == reduce::CtaRows::helped);
      helped_runs += helped.plan.cta_rows == reduce::CtaRows::helped;
      CHECK_MESSAGE(helped.out_bytes == alone.out_bytes, "rows with and without helpers differ");
      CHECK(helped.residual_out_bytes == alone.residual_out_bytes);
    }
  }
  CHECK_MESSAGE(helped_runs > 0, "no call took helpers");
}

// Rows split over a cluster at every slice size and vectors a thread the benchmark may ask for
// (reduce::slice_bytes(), reduce::slice_vectors_per_thread(): the threads and clusters change,
// so the bits do): float64, every element written, repeatable, a row alone as among the others;
// aligned, misaligned, in place, with a residual and the parameters.
template <RowOp kOp> void suite_slice_layouts() {
  const RestoreOnExit restore_slice(reduce::slice_bytes());
  const RestoreOnExit restore_per_thread(reduce::slice_vectors_per_thread());
  for (int slice_kb : {0, 16, 64})
    for (int per_thread : {1, 2, 4, 8, 16}) {  // 8 or 16 is each op's default (sliced_vectors_per_thread)
      reduce::slice_bytes() = slice_kb << 10;
      reduce::slice_vectors_per_thread() = per_thread;
      INFO("slice " << slice_kb << " KB, " << per_thread << " vectors a thread");
      RowCase aligned = shaped_case(DType::bf16, DType::bf16, 8, 262144);
      const std::uint64_t seed = fresh_seed();
      const RowRun a = check_case<kOp>(aligned, seed);
      const RowRun b = check_case<kOp>(aligned, seed);
      CHECK_MESSAGE(a.out_bytes == b.out_bytes, "not bitwise repeatable");
      const RowRun alone = run_row_case<kOp>(aligned, seed, 5, 1);
      REQUIRE(alone.status.ok());
      const std::size_t row_bytes = std::size_t(aligned.cols) * 2;
      CHECK_MESSAGE(std::memcmp(a.out_bytes.data() + 5 * row_bytes, alone.out_bytes.data() + 5 * row_bytes, row_bytes) == 0,
                    "row 5 differs alone vs among 8 rows");

      RowCase misaligned = shaped_case(DType::f32, DType::bf16, 3, 100003);
      misaligned.in_shift = 2;
      misaligned.out_shift = 1;
      RowCase in_place = shaped_case(DType::bf16, DType::bf16, 5, 40000);
      in_place.in_shift = in_place.out_shift = 1;
      in_place.in_place = true;
      if constexpr (kOp != RowOp::softmax) {
        misaligned.weight = DType::f32;
        misaligned.stats = true;
        misaligned.bias = kOp == RowOp::layer_norm;
        in_place.residual = in_place.residual_in_place = true;
        in_place.weight = DType::bf16;
      }
      check_case<kOp>(misaligned);
      check_case<kOp>(in_place);
    }
}

// The norms' sliced rows with their parameters staged beside the row or read from global memory
// (reduce::sliced_params): the same bits, every combination of weight and bias, both dtypes; and
// automatically (staged where the call is one wave) a row alone equals that row among 16.
template <RowOp kOp> void suite_slice_params() {
  static_assert(kOp != RowOp::softmax, "softmax takes no parameters");
  using reduce::SlicedParams;
  const RestoreOnExit restore(reduce::sliced_params());
  struct Params {
    bool weight, bias, offset_and_modulation;
  };
  const std::vector<Params> sets = kOp == RowOp::layer_norm
                                       ? std::vector<Params>{{true, true, false}, {true, false, false}, {false, true, false},
                                                             {true, true, true}}
                                       : std::vector<Params>{{true, false, false}, {true, false, true}};
  for (DType t : {DType::bf16, DType::f32})
    for (const Params& set : sets) {
      INFO(dtype_name(t) << " weight " << set.weight << " bias " << set.bias << " offset and modulation "
                         << set.offset_and_modulation);
      RowCase c = shaped_case(t, t, 8, 262144);
      if (set.weight) c.weight = t;
      c.param_dtype = t;
      c.bias = set.bias;
      c.stats = true;
      if (set.offset_and_modulation) {
        c.weight_offset = 1.f;
        c.modulation = true;
      }
      const std::uint64_t seed = fresh_seed();
      reduce::sliced_params() = SlicedParams::never;
      const RowRun global = check_case<kOp>(c, seed);
      reduce::sliced_params() = SlicedParams::always;
      const RowRun staged = check_case<kOp>(c, seed);
      CHECK(staged.vectors_aligned);  // the calls that stage their parameters
      CHECK_MESSAGE(global.out_bytes == staged.out_bytes, "staged parameters change the bits");

      reduce::sliced_params() = SlicedParams::automatic;
      RowCase many = c;
      many.rows = 16;  // 256 CTAs of 16-CTA clusters: more than the SMs, parameters read from global memory
      const std::uint64_t seed2 = fresh_seed();
      const RowRun all = check_case<kOp>(many, seed2);
      const RowRun alone = run_row_case<kOp>(many, seed2, 5, 1);  // one cluster: staged
      REQUIRE(alone.status.ok());
      const std::size_t row_bytes = std::size_t(many.cols) * dtype_size(t);
      CHECK_MESSAGE(std::memcmp(all.out_bytes.data() + 5 * row_bytes, alone.out_bytes.data() + 5 * row_bytes, row_bytes) == 0,
                    "row 5 differs alone vs among 16 rows");
    }

  // With a residual the stage holds the row, the residual and the parameters (LayerNorm: 4 x 32 KB
  // on bf16 N = 262144, one CTA an SM; an H100 runs 7 such clusters at once): automatically the
  // parameters are staged only where the device runs all the call's clusters of that layout at once
  // (sliced_clusters_held), else read from global memory; the same bits either way.
  for (std::int64_t rows : {4, 8}) {
    RowCase c = shaped_case(DType::bf16, DType::bf16, rows, 262144);
    c.weight = c.param_dtype = DType::bf16;
    c.bias = kOp == RowOp::layer_norm;
    c.residual = true;
    const std::uint64_t seed = fresh_seed();
    reduce::sliced_params() = SlicedParams::automatic;
    const RowRun automatic = check_case<kOp>(c, seed);
    REQUIRE(automatic.plan.staging == reduce::Staging::slices);
    DeviceInfo device;
    REQUIRE(current_device(device).ok());
    const int params = kOp == RowOp::layer_norm ? 2 : 1;
    const reduce::StagedLayout& planned = automatic.plan.staged;
    const reduce::StagedLayout with_params = planned.params_offset > 0 ? planned : reduce::with_staged_params(planned, params);
    int held = -1;
    REQUIRE(reduce::sliced_clusters_held<RowPolicy<kOp>, bf16_t, bf16_t>(with_params, false, device, held).ok());
    INFO(rows << " rows; clusters of " << with_params.cluster << " x " << with_params.stage_bytes
              << " bytes of stage held at once: " << held << "; plan: " << reduce::describe(automatic.plan));
    const bool one_wave = rows <= held;
    CHECK((automatic.plan.staged.params_offset > 0) == one_wave);
    reduce::sliced_params() = SlicedParams::never;
    const RowRun global = check_case<kOp>(c, seed);
    CHECK_MESSAGE(global.out_bytes == automatic.out_bytes, "staged parameters change the bits");
    CHECK(global.residual_out_bytes == automatic.residual_out_bytes);
    reduce::sliced_params() = SlicedParams::always;
    const RowRun staged = check_case<kOp>(c, seed);
    CHECK(staged.plan.staged.params_offset > 0);
    CHECK_MESSAGE(global.out_bytes == staged.out_bytes, "staged parameters change the bits");
  }
}

// 16-bit rows sliced into 32 KB CTAs on the narrow kernel (five CTAs an SM) and on the wide one
// (reduce::sliced_kernel): the same bits, each call checked against float64; automatically the
// narrow one exactly where it saves a wave (narrow_saves_waves on the device's held clusters).
template <RowOp kOp> void suite_narrow_slices() {
  using reduce::SlicedKernel;
  const RestoreOnExit restore_kernel(reduce::sliced_kernel());
  const RestoreOnExit restore_params(reduce::sliced_params());
  reduce::sliced_params() = reduce::SlicedParams::never;  // staged parameters take 64 KB a CTA: no narrow kernel
  DeviceInfo device;
  REQUIRE(current_device(device).ok());
  for (DType t : {DType::bf16, DType::f16})
    for (std::int64_t rows : {3, 29}) {
      INFO(dtype_name(t) << " " << rows << " x 262144");
      RowCase c = shaped_case(t, t, rows, 262144);
      if (kOp != RowOp::softmax) {
        c.weight = c.param_dtype = t;
        c.bias = kOp == RowOp::layer_norm;
        c.stats = true;
      }
      const std::uint64_t seed = fresh_seed();
      reduce::sliced_kernel() = SlicedKernel::wide;
      const RowRun wide = check_case<kOp>(c, seed);
      CHECK((wide.plan.staging == reduce::Staging::slices && !wide.plan.narrow_slices));
      reduce::sliced_kernel() = SlicedKernel::narrow;
      const RowRun narrow = check_case<kOp>(c, seed);
      REQUIRE(narrow.plan.narrow_slices);
      CHECK_MESSAGE(narrow.out_bytes == wide.out_bytes, "the narrow kernel changes the bits");
      reduce::sliced_kernel() = SlicedKernel::automatic;
      const RowRun automatic = check_case<kOp>(c, seed);
      CHECK(automatic.out_bytes == wide.out_bytes);
      int held_wide = -1, held_narrow = -1;
      const reduce::StagedLayout& l = automatic.plan.staged;
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        REQUIRE(reduce::sliced_clusters_held<RowPolicy<kOp>, T, T>(l, false, device, held_wide).ok());
        REQUIRE(reduce::sliced_clusters_held<RowPolicy<kOp>, T, T>(l, true, device, held_narrow).ok());
      });
      INFO("clusters held at once: " << held_wide << " wide, " << held_narrow << " narrow");
      CHECK(held_narrow >= held_wide);
      CHECK(automatic.plan.narrow_slices == reduce::narrow_saves_waves(rows, held_wide, held_narrow));
    }
}

// Rejected calls return the reason and leave the output untouched.
template <RowOp kOp> void suite_rejects() {
  DeviceBuffer in(64 * 64 * 4), out(64 * 64 * 4);
  out.poison();
  auto expect = [&](Errc code, ConstRows i, Rows o, NormOptions opt = {}) {
    const Status s = call_row_op<kOp>(i, o, opt, nullptr);
    CHECK_MESSAGE(s.code() == code, s.to_string());
    CHECK(!s.message().empty());
  };
  const ConstRows good_in{in.get(), DType::f32, 64, 64, 0};
  const Rows good_out{out.get(), DType::f32, 64, 64, 0};
  expect(Errc::null_pointer, {nullptr, DType::f32, 64, 64, 0}, good_out);
  expect(Errc::bad_shape, {in.get(), DType::f32, 64, 64, 63}, good_out);
  expect(Errc::bad_shape, good_in, {out.get(), DType::f32, 64, 63, 0});
  expect(Errc::misaligned, {static_cast<char*>(in.get()) + 2, DType::f32, 8, 8, 0}, {out.get(), DType::f32, 8, 8, 0});
  expect(Errc::too_large, {in.get(), DType::f32, 1, reduce::max_cols(DType::f32) + 1, 0},
         {out.get(), DType::f32, 1, reduce::max_cols(DType::f32) + 1, 0});
  expect(Errc::aliasing, good_in, {static_cast<float*>(in.get()) + 1, DType::f32, 64, 64, 0});
  NormOptions weighted;
  weighted.weight = {in.get(), DType::f32, 63};
  if constexpr (kOp != RowOp::softmax) {  // softmax's options have no weight (its validation: CPU tests)
    expect(Errc::bad_shape, good_in, good_out, weighted);
    NormOptions bad_eps;
    bad_eps.eps = 0.f;
    expect(Errc::bad_argument, good_in, good_out, bad_eps);
  }
  HostArray h(DType::f32, 64 * 64);
  out.download(h.data());
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(h.is_poison(i));
}

}  // namespace fusekit::test

// Declares the shared test cases for one op in the including translation unit.
#define FUSEKIT_ROW_SUITE(name, op)                                                                          \
  GPU_TEST_CASE(name ": seed shapes in f32, f16, bf16") { ::fusekit::test::suite_seed_shapes<op>(); }        \
  GPU_TEST_CASE(name ": N from 1 to 262144, M from 0 to 4096") { ::fusekit::test::suite_sizes<op>(); }       \
  GPU_TEST_CASE(name ": strides, misaligned pointers, in place, mixed dtypes") {                             \
    ::fusekit::test::suite_layouts<op>();                                                                    \
  }                                                                                                          \
  GPU_TEST_CASE(name ": bitwise repeatable and batch invariant") { ::fusekit::test::suite_repeatable<op>(); } \
  GPU_TEST_CASE(name ": rejected calls write nothing") { ::fusekit::test::suite_rejects<op>(); }          \
  GPU_TEST_CASE(name ": aligned and general vector paths give the same bits") {                             \
    ::fusekit::test::suite_paths_agree<op>();                                                               \
  }                                                                                                          \
  GPU_TEST_CASE(name ": staged and register kernels give the same bits") {                                  \
    ::fusekit::test::suite_kernels_agree<op>();                                                              \
  }                                                                                                          \
  GPU_TEST_CASE(name ": in-place calls queued on one stream equal synchronized ones") {                     \
    ::fusekit::test::suite_dependent_chain<op>();                                                            \
  }                                                                                                          \
  GPU_TEST_CASE(name ": rows with and without write helpers give the same bits") {                        \
    ::fusekit::test::suite_helpers_agree<op>();                                                              \
  }                                                                                                          \
  GPU_TEST_CASE(name ": sliced rows at every slice size and vectors a thread") {                            \
    ::fusekit::test::suite_slice_layouts<op>();                                                              \
  }                                                                                                          \
  GPU_TEST_CASE(name ": sliced rows on the narrow and wide kernels give the same bits") {                    \
    ::fusekit::test::suite_narrow_slices<op>();                                                              \
  }
