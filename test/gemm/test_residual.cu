// GPU tests of residual add and gated residual (out = residual + gate[idx[row]] * y), in place
// and out of place, and of the out_proj and fc2 presets at every H3 token count. At the end,
// their argument checks (CPU).
#include "fusekit/gemm.hpp"
#include "gemm_testing.hpp"
#include "validation_testing.hpp"

#include <cmath>
#include <random>

using namespace fusekit;
using namespace fusekit::test;
using gemm::Activation;

namespace {

std::vector<std::int32_t> random_idx(std::int64_t m, int table_rows) {
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::int32_t> idx(m);
  for (auto& i : idx) i = static_cast<std::int32_t>(rng() % table_rows);
  return idx;
}

DeviceBuffer upload_idx(const std::vector<std::int32_t>& idx) {
  DeviceBuffer d(idx.size() * sizeof(std::int32_t));
  if (!idx.empty()) d.upload(idx.data());
  return d;
}

// The adaLN modulation table [T, 6 * n] and a view of one of its six chunks (as the block slices it).
struct GateTable {
  DevMatrix table;
  Matrix chunk;  // host values of the chunk
  ConstRows view;
};
GateTable gate_table(int t, std::int64_t n, int which) {
  GateTable g{random_device(DType::bf16, t, 6 * n, 0.3), Matrix{DType::bf16, t, n, std::vector<float>(t * n)}, {}};
  for (int r = 0; r < t; ++r)
    for (std::int64_t c = 0; c < n; ++c) g.chunk.v[r * n + c] = g.table.host.at(r, which * n + c);
  g.view = {static_cast<const bf16_t*>(g.table.buf.get()) + which * n, DType::bf16, t, n, 6 * n};
  return g;
}

void run_residual(std::int64_t m, std::int64_t n, std::int64_t k, bool gated, bool with_bias, DType out_t) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(gated);
  const DevMatrix a = random_device(DType::bf16, m, k, 1.0);
  const DevMatrix w = random_device(DType::bf16, n, k, 1.0 / std::sqrt(double(k)));
  const DevMatrix bias = random_device(DType::bf16, 1, n, 0.3);
  const DevMatrix residual = random_device(out_t, m, n, 2.0);
  const GateTable g = gate_table(5, n, 2);
  const auto idx = random_idx(m, 5);
  const DeviceBuffer d_idx = upload_idx(idx);
  const DevMatrix out = poisoned_output(out_t, m, n);
  gemm::ResidualOptions opt;
  if (with_bias) opt.bias = {bias.buf.get(), DType::bf16, n};
  if (gated) {
    opt.gate = g.view;
    opt.idx = d_idx.as<std::int32_t>();
  }
  const Status st = gemm::linear_residual(a.view(), w.view(), residual.view(), out.out(), opt);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK_LAUNCH();
  const auto rows = sample_rows(m, fresh_seed());
  Ref ref = ref_gemm(a.host, w.host, rows);
  ref_bias_act(ref, with_bias ? &bias.host : nullptr, Activation::identity);
  ref_residual(ref, residual.host, gated ? &g.chunk : nullptr, idx);
  check_close(fetch_written(out), ref, "linear_residual");

  // In place (out = residual) gives the same bits.
  const DevMatrix x = upload(residual.host);
  REQUIRE(gemm::linear_residual(a.view(), w.view(), x.view(), x.out(), opt).ok());
  CHECK_LAUNCH();
  CHECK(bitwise_equal(x, out));
}

// out_proj / fc2: x += gate[idx] * (a W^T), in place, at one token count.
template <class Preset>
void run_gated_preset(Preset preset, const char* name, const DevMatrix& w, std::int64_t m, const gemm::H3Dims& d) {
  CAPTURE(m);
  const std::int64_t k = w.host.cols, n = w.host.rows;
  const DevMatrix a = random_device(DType::bf16, m, k, 1.0);
  const DevMatrix x0 = random_device(DType::bf16, m, n, 2.0);
  const GateTable g = gate_table(6, n, name[0] == 'o' ? 2 : 5);  // gate_msa / gate_mlp chunks
  const auto idx = random_idx(m, 6);
  const DeviceBuffer d_idx = upload_idx(idx);
  // Out of place through the building block, poison-checked; then the in-place preset, twice.
  const DevMatrix out = poisoned_output(DType::bf16, m, n);
  gemm::ResidualOptions opt;
  opt.gate = g.view;
  opt.idx = d_idx.as<std::int32_t>();
  REQUIRE(gemm::linear_residual(a.view(), w.view(), x0.view(), out.out(), opt).ok());
  const DevMatrix x = upload(x0.host), x_again = upload(x0.host);
  REQUIRE(preset(a.view(), w.view(), x.out(), g.view, d_idx.as<std::int32_t>(), nullptr, d).ok());
  REQUIRE(preset(a.view(), w.view(), x_again.out(), g.view, d_idx.as<std::int32_t>(), nullptr, d).ok());
  CHECK_LAUNCH();
  const Matrix got = fetch_written(out);
  CHECK(bitwise_equal(x, out));
  CHECK(bitwise_equal(x, x_again));
  const auto rows = sample_rows(m, fresh_seed());
  Ref ref = ref_gemm(a.host, w.host, rows);
  ref_residual(ref, x0.host, &g.chunk, idx);
  check_close(got, ref, name);
  Ref unfused = take_rows(cublaslt_gemm(a, w), rows);
  ref_residual(unfused, x0.host, &g.chunk, idx);
  round_all(unfused, DType::bf16);
  check_not_worse_than_cublaslt(take_rows(got, rows), unfused, ref, name);
}

}  // namespace

GPU_TEST_CASE("linear_residual: plain and gated, bias, in place == out of place") {
  on_every_tile([] {
    run_residual(37, 136, 72, false, true, DType::bf16);
    run_residual(1, 8, 8, true, false, DType::bf16);
    run_residual(130, 264, 256, true, true, DType::bf16);
    run_residual(70, 200, 64, true, false, DType::f32);
    run_residual(325, 1032, 136, true, true, DType::bf16);
  });
}

// Residual and gate rows off 16-byte alignment take AddResidual's element-by-element path (every
// other view here has aligned rows): a residual with rows n + 1 apart, a gate chunk starting at
// an odd column of a table with rows 6n + 3 apart; f16 inputs, 1537 rows.
GPU_TEST_CASE("linear_residual: residual and gate rows off 16-byte alignment, f16, 1537 rows") {
  on_every_tile([] {
    for (DType t : {DType::bf16, DType::f16}) {
      CAPTURE(int(t));
      const std::int64_t m = 1537, n = 136, k = 72;
      const DevMatrix a = random_device(t, m, k, 1.0), w = random_device(t, n, k, 1.0 / std::sqrt(double(k)));
      const DevMatrix res_wide = random_device(t, m, n + 1, 2.0), table = random_device(t, 5, 6 * n + 3, 0.3);
      Matrix res{t, m, n, std::vector<float>(std::size_t(m * n))}, chunk{t, 5, n, std::vector<float>(std::size_t(5 * n))};
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < n; ++c) res.v[std::size_t(r * n + c)] = res_wide.host.at(r, c);
      for (std::int64_t r = 0; r < 5; ++r)
        for (std::int64_t c = 0; c < n; ++c) chunk.v[std::size_t(r * n + c)] = table.host.at(r, 2 * n + 1 + c);
      const auto idx = random_idx(m, 5);
      const DeviceBuffer d_idx = upload_idx(idx);
      const DevMatrix out = poisoned_output(t, m, n);
      gemm::ResidualOptions opt;
      opt.gate = {static_cast<const char*>(table.buf.get()) + (2 * n + 1) * 2, t, 5, n, 6 * n + 3};
      opt.idx = d_idx.as<std::int32_t>();
      const ConstRows res_view{res_wide.buf.get(), t, m, n, n + 1};
      const Status st = gemm::linear_residual(a.view(), w.view(), res_view, out.out(), opt);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      CHECK_LAUNCH();
      const auto rows = sample_rows(m, fresh_seed());
      Ref ref = ref_gemm(a.host, w.host, rows);
      ref_residual(ref, res, &chunk, idx);
      check_close(fetch_written(out), ref, "linear_residual (unaligned rows)");
    }
  });
}

GPU_TEST_CASE("linear_residual: an index outside the gate table makes its row NaN, not a stray read") {
  const std::int64_t m = 4, n = 16, k = 16;
  const DevMatrix a = random_device(DType::bf16, m, k, 1.0), w = random_device(DType::bf16, n, k, 0.25);
  const DevMatrix res = random_device(DType::bf16, m, n, 1.0), out = poisoned_output(DType::bf16, m, n);
  const GateTable g = gate_table(3, n, 0);
  const DeviceBuffer d_idx = upload_idx({0, 99, 2, -1});
  gemm::ResidualOptions opt;
  opt.gate = g.view;
  opt.idx = d_idx.as<std::int32_t>();
  REQUIRE(gemm::linear_residual(a.view(), w.view(), res.view(), out.out(), opt).ok());
  CHECK_LAUNCH();
  const Matrix got = fetch_written(out);
  for (std::int64_t c = 0; c < n; ++c) {
    CHECK(std::isfinite(got.at(0, c)));
    CHECK(std::isnan(got.at(1, c)));
    CHECK(std::isfinite(got.at(2, c)));
    CHECK(std::isnan(got.at(3, c)));
  }
}

GPU_TEST_CASE("out_proj: every H3 token count, in place, vs float64 and cuBLASLt") {
  const gemm::H3Dims d;
  const DevMatrix w = random_device(DType::bf16, d.hidden, d.heads * d.head_dim, 1.0 / std::sqrt(7168.0));
  for (std::int64_t m : {1, 37, 70, 925, 4096}) run_gated_preset(gemm::out_proj<>, "out_proj", w, m, d);
}

GPU_TEST_CASE("fc2: every H3 token count, in place, vs float64 and cuBLASLt") {
  const gemm::H3Dims d;
  const DevMatrix w = random_device(DType::bf16, d.hidden, d.ffn, 1.0 / std::sqrt(double(d.ffn)));
  for (std::int64_t m : {1, 37, 70, 925, 4096}) run_gated_preset(gemm::fc2<>, "fc2", w, m, d);
}

GPU_TEST_CASE("out_proj and fc2: the tiny fixture configuration") {
  const gemm::H3Dims d = gemm::H3Dims::tiny();
  run_gated_preset(gemm::out_proj<>, "out_proj tiny", random_device(DType::bf16, d.hidden, d.heads * d.head_dim, 0.125),
                   9, d);
  run_gated_preset(gemm::fc2<>, "fc2 tiny", random_device(DType::bf16, d.hidden, d.ffn, 0.09), 9, d);
}

// ---- argument checks (CPU; validation_testing.hpp) ----
namespace validation_cases {
using namespace fusekit;
using namespace fusekit::gemm;
using namespace fusekit::test::validation;

TEST_CASE("linear_residual: residual, gate table and index checks") {
  const ConstRows res{at(65536), DType::bf16, M, N, 0};
  CHECK(linear_residual(a_ok(), w_ok(), {at(65536), DType::bf16, M, N - 8, 0}, out_ok()).code() == Errc::bad_shape);
  CHECK(linear_residual(a_ok(), w_ok(), {at(65536), DType::f32, M, N, 0}, out_ok()).code() == Errc::unsupported_dtype);
  // In place (same pointer, stride, dtype) is allowed; a shifted overlap is not.
  CHECK_PASSES_VALIDATION(linear_residual(a_ok(), w_ok(), as_const(out_ok()), out_ok()));
  CHECK(linear_residual(a_ok(), w_ok(), {at(16384 + 16), DType::bf16, M, N, 0}, out_ok()).code() == Errc::aliasing);
  ResidualOptions opt;
  opt.gate = {at(98304), DType::bf16, 3, N, 0};
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::null_pointer);  // idx missing
  opt.idx = reinterpret_cast<const std::int32_t*>(at(131074));
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::misaligned);
  opt.idx = reinterpret_cast<const std::int32_t*>(at(131072));
  opt.gate = {at(98304), DType::bf16, 3, N + 8, 0};
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::bad_shape);
  opt.gate = {at(16384), DType::bf16, 3, N, 0};
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::aliasing);  // gate table is the output
  opt.gate = {nullptr, DType::bf16, 3, N, 0};  // a shape without a pointer is not "no gate"
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::null_pointer);
  opt = {};
  opt.bias = {at(16384 + 32), DType::bf16, N};  // bias inside the output, in place or not
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::aliasing);
  CHECK(linear_residual(a_ok(), w_ok(), as_const(out_ok()), out_ok(), opt).code() == Errc::aliasing);
  opt.bias = {nullptr, DType::bf16, N};
  CHECK(linear_residual(a_ok(), w_ok(), res, out_ok(), opt).code() == Errc::null_pointer);
}

TEST_CASE("linear_residual and the presets: M = 0 is a no-op that needs no GPU") {
  const ConstRows empty_a{nullptr, DType::bf16, 0, K, 0};
  const Rows empty_out{nullptr, DType::bf16, 0, N, 0};
  ResidualOptions opt;
  opt.gate = {at(98304), DType::bf16, 3, N, 0};  // a gate table, and no index for no rows
  CHECK(linear_residual(empty_a, w_ok(), as_const(empty_out), empty_out, opt).ok());
  const H3Dims tiny = H3Dims::tiny();
  const ConstRows w_out{at(8192), DType::bf16, tiny.hidden, tiny.heads * tiny.head_dim, 0};
  const ConstRows attn{nullptr, DType::bf16, 0, tiny.heads * tiny.head_dim, 0};
  const Rows x{nullptr, DType::bf16, 0, tiny.hidden, 0};
  CHECK(out_proj(attn, w_out, x, {at(65536 * 8), DType::bf16, 2, tiny.hidden, 0}, nullptr, nullptr, tiny).ok());
  const ConstRows w_fc2{at(8192), DType::bf16, tiny.hidden, tiny.ffn, 0};
  const ConstRows a_fc2{nullptr, DType::bf16, 0, tiny.ffn, 0};
  CHECK(fc2(a_fc2, w_fc2, x, {at(65536 * 8), DType::bf16, 2, tiny.hidden, 0}, nullptr, nullptr, tiny).ok());
}

TEST_CASE("out_proj and fc2 check the H3 block's shapes") {
  const H3Dims tiny = H3Dims::tiny();
  const ConstRows w_out{at(8192), DType::bf16, tiny.hidden, tiny.heads * tiny.head_dim, 0};
  const ConstRows attn{at(0), DType::bf16, M, tiny.heads * tiny.head_dim, 0};
  const Rows x{at(65536 * 4), DType::bf16, M, tiny.hidden, 0};
  CHECK(out_proj(attn, w_out, x, {}, nullptr, nullptr, tiny).code() == Errc::null_pointer);  // gate required
  CHECK(fc2(attn, w_out, x, {at(65536 * 8), DType::bf16, 2, tiny.hidden, 0}, nullptr, nullptr, tiny).code() ==
        Errc::bad_shape);  // fc2 expects K = ffn
}

}  // namespace validation_cases
