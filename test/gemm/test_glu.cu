// GPU tests of the gated linear unit and the fc1 (SwiGLU) preset: both row orders, against
// float64 and cuBLASLt + unfused GLU; native weights == diffusers-swapped weights, bitwise. At
// the end, linear_glu's and fc1_swiglu's argument checks (CPU).
#include "fusekit/gemm.hpp"
#include "gemm_testing.hpp"
#include "validation_testing.hpp"

#include <cmath>
#include <random>
#include <vector>

using namespace fusekit;
using namespace fusekit::test;
using gemm::Activation;
using gemm::GluOrder;

namespace {

// W with its two row halves exchanged: the diffusers layout of a native [gate; value] weight.
Matrix swap_halves(const Matrix& w) {
  Matrix s = w;
  const std::int64_t half = w.rows / 2 * w.cols;
  std::copy(w.v.begin() + half, w.v.end(), s.v.begin());
  std::copy(w.v.begin(), w.v.begin() + half, s.v.begin() + half);
  return s;
}

// One linear_glu call's inputs (fresh random A, W and bias), its launch and its float64 reference.
struct GluCall {
  std::int64_t m, n_out;
  Activation act;
  GluOrder order;
  bool with_bias;
  DType t, out_t;  // A, W and bias; the output
  DevMatrix a, w, bias;
  gemm::GluOptions opt;

  GluCall(std::int64_t m_, std::int64_t n_out_, std::int64_t k, Activation act_, GluOrder order_, bool with_bias_,
          DType t_ = DType::bf16, DType out_t_ = DType::bf16)
      : m(m_), n_out(n_out_), act(act_), order(order_), with_bias(with_bias_), t(t_), out_t(out_t_),
        a(random_device(t, m, k, 1.0)),
        w(random_device(t, 2 * n_out, k, 1.0 / std::sqrt(double(k)))),
        bias(random_device(t, 1, 2 * n_out, 0.3)) {
    opt.act = act;
    opt.order = order;
    if (with_bias) opt.bias = {bias.buf.get(), t, 2 * n_out};
  }
  // Into a freshly poisoned output, on the tiles the launcher (or a forced choice) picks.
  DevMatrix run() const {
    DevMatrix out = poisoned_output(out_t, m, n_out);
    const Status st = gemm::linear_glu(a.view(), w.view(), out.out(), opt);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    CHECK_LAUNCH();
    return out;
  }
  Ref reference(const std::vector<std::int64_t>& rows) const {
    Ref y = ref_gemm(a.host, w.host, rows);
    ref_bias_act(y, with_bias ? &bias.host : nullptr, Activation::identity);
    return ref_glu(y, act, order);
  }
};

void run_glu(std::int64_t m, std::int64_t n_out, std::int64_t k, Activation act, GluOrder order, bool with_bias) {
  CAPTURE(m);
  CAPTURE(n_out);
  CAPTURE(k);
  const GluCall call(m, n_out, k, act, order, with_bias);
  const DevMatrix out = call.run();
  check_close(fetch_written(out), call.reference(sample_rows(m, fresh_seed())), "linear_glu");
}

__global__ void activate_kernel(Activation act, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gemm::activate(act, x[i]);
}

}  // namespace

// silu runs in MUFU forms (__expf, __fdividef): across its whole range, fresh random points plus
// the edges (0, the denominator past 2^126 below x = -87, overflow of e^-x, +-inf), within 2e-5
// of float64 relatively (__expf's documented 2 + 1.173 |x| ulp at x = -87 is 1.24e-5) or 1e-30
// absolutely; a bf16 output rounds at 2^-8.
GPU_TEST_CASE("activate: silu against float64 over its whole range") {
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<float> wide(-120.f, 120.f), near(-8.f, 8.f);
  std::vector<float> x = {0.f, -0.f, 1e-30f, -1e-30f, -87.f, -87.5f, -88.7f, -89.f, -100.f, -1e4f, 87.f, 1e4f,
                          INFINITY, -INFINITY};
  for (int i = 0; i < 4096; ++i) x.push_back(i % 2 ? wide(rng) : near(rng));
  const int n = static_cast<int>(x.size());
  DeviceBuffer dx(n * sizeof(float)), dy(n * sizeof(float));
  dx.upload(x.data());
  dy.poison();
  activate_kernel<<<(n + 255) / 256, 256>>>(Activation::silu, dx.as<float>(), dy.as<float>(), n);
  CHECK_LAUNCH();
  std::vector<float> y(n);
  dy.download(y.data());
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const double want = ref_activate(Activation::silu, double(x[i]));
    const bool ok = std::isnan(want) ? std::isnan(y[i])
                    : std::isinf(want) ? y[i] == want
                                       : std::fabs(y[i] - want) <= 2e-5 * std::fabs(want) + 1e-30;
    if (!ok && ++bad <= 5) MESSAGE("x = " << x[i] << ": got " << y[i] << ", want " << want);
  }
  CHECK(bad == 0);
}

GPU_TEST_CASE("linear_glu: both orders, SiLU and GELU, bias, partial tiles") {
  on_every_tile([] {
    run_glu(1, 8, 8, Activation::silu, GluOrder::gate_value, false);
    run_glu(37, 200, 72, Activation::silu, GluOrder::value_gate, false);
    run_glu(130, 136, 264, Activation::gelu_tanh, GluOrder::gate_value, true);
    run_glu(70, 64, 128, Activation::identity, GluOrder::value_gate, true);
    run_glu(200, 1032, 200, Activation::silu, GluOrder::gate_value, false);
  });
}

GPU_TEST_CASE("linear_glu: f16 inputs, f32 output, 1537 rows") {
  on_every_tile([] {
    for (const GluCall& call : {GluCall(1537, 136, 72, Activation::silu, GluOrder::gate_value, true, DType::f16, DType::f16),
                                GluCall(1537, 200, 64, Activation::gelu_tanh, GluOrder::value_gate, false,
                                        DType::f16, DType::f32),
                                GluCall(1537, 64, 136, Activation::silu, GluOrder::value_gate, true, DType::bf16,
                                        DType::f32)}) {
      CAPTURE(int(call.t));
      CAPTURE(int(call.out_t));
      check_close(fetch_written(call.run()), call.reference(sample_rows(call.m, fresh_seed())), "linear_glu");
    }
  });
}

// Every tile kind, bit for bit and against float64, where the last N-tile is partial (8 of 64
// output columns), with a bias and both orders: with W = [value; gate] the Bias node read past the
// end of the bias vector there (memcheck, H200, twenty-eighth session). More tiles than SMs (the
// 160-token tiles hand tiles over), and a last token tile of one row.
GPU_TEST_CASE("linear_glu: a partial last N-tile with a bias, every tile, both orders") {
  for (const GluCall& call : {GluCall(463, 8712, 72, Activation::gelu_tanh, GluOrder::value_gate, true),
                              GluCall(233, 8712, 136, Activation::silu, GluOrder::gate_value, true),
                              GluCall(925, 4104, 64, Activation::silu, GluOrder::value_gate, false)}) {
    CAPTURE(call.m);
    CAPTURE(call.n_out);
    const RestoreSwappedTiles restore;
    std::vector<DevMatrix> outs;
    for (gemm::SwappedTiles choice : kEveryTile) {
      CAPTURE(int(choice));
      gemm::swapped_tiles() = choice;
      outs.push_back(call.run());
    }
    for (std::size_t i = 1; i < outs.size(); ++i) CHECK(bitwise_equal(outs[0], outs[i]));
    const Ref ref = call.reference(sample_rows(call.m, fresh_seed()));
    for (const DevMatrix& out : outs) check_close(fetch_written(out), ref, "linear_glu");
  }
}

// A strided output view 16 bytes into its buffer (rows 200 apart, 136 columns: a partial last N-tile)
// on every tile kind: the 232-token tiles hand their rounded tile to the copy engine, whose box
// must write only the view's columns and rows (245 rows: a second, partial token tile). Every
// element in the view written, none beside it, the same bits on every tile, close to float64.
GPU_TEST_CASE("linear_glu: a strided output view off its buffer's start, every tile, copy-engine stores") {
  const std::int64_t m = 245, n_out = 136, k = 72, ldo = 200, offset = 8;
  const GluCall call(m, n_out, k, Activation::silu, GluOrder::value_gate, true);
  const RestoreSwappedTiles restore;
  std::vector<std::vector<unsigned char>> outs;
  for (gemm::SwappedTiles choice : kEveryTile) {
    CAPTURE(int(choice));
    gemm::swapped_tiles() = choice;
    const DevMatrix out = poisoned_output(DType::bf16, m + 1, ldo);
    bf16_t* base = out.buf.as<bf16_t>() + offset;
    const Status st = gemm::linear_glu(call.a.view(), call.w.view(), {base, DType::bf16, m, n_out, ldo}, call.opt);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    CHECK_LAUNCH();
    const ViewReadBack view = read_view(out, offset, m, n_out, ldo);
    CHECK(view.unwritten == 0);
    CHECK(view.outside_written == 0);
    check_close(view.got, call.reference(sample_rows(m, fresh_seed())), "strided linear_glu");
    outs.push_back(view.bytes);
  }
  for (std::size_t i = 1; i < outs.size(); ++i) CHECK(outs[0] == outs[i]);
}

// One row needs no row stride that is a multiple of 16 bytes (validate.hpp), which the copy
// engine's tensor map does: on every tile kind, a one-row output view with a 24-byte stride.
GPU_TEST_CASE("linear_glu: one row with a stride the copy engine could not take, every tile") {
  const GluCall call(1, 8, 64, Activation::silu, GluOrder::gate_value, true);
  const RestoreSwappedTiles restore;
  for (gemm::SwappedTiles choice : kEveryTile) {
    CAPTURE(int(choice));
    gemm::swapped_tiles() = choice;
    const DevMatrix out = poisoned_output(DType::bf16, 1, 16);
    const Status st = gemm::linear_glu(call.a.view(), call.w.view(), {out.buf.get(), DType::bf16, 1, 8, 12}, call.opt);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    CHECK_LAUNCH();
    const ViewReadBack view = read_view(out, 0, 1, 8, 12);
    CHECK(view.unwritten == 0);
    CHECK(view.outside_written == 0);
    check_close(view.got, call.reference({0}), "one-row linear_glu");
  }
}

GPU_TEST_CASE("fc1_swiglu: every H3 token count; native == diffusers-swapped; repeatable; vs cuBLASLt") {
  const gemm::H3Dims d;
  const DevMatrix w = random_device(DType::bf16, 2 * d.ffn, d.hidden, 1.0 / std::sqrt(double(d.hidden)));
  const DevMatrix w_swapped = upload(swap_halves(w.host));
  for (std::int64_t m : {1, 37, 70, 925, 4096}) {
    CAPTURE(m);
    const DevMatrix h = random_device(DType::bf16, m, d.hidden, 1.0);
    const DevMatrix out = poisoned_output(DType::bf16, m, d.ffn), again = poisoned_output(DType::bf16, m, d.ffn);
    const DevMatrix swapped = poisoned_output(DType::bf16, m, d.ffn);
    REQUIRE(gemm::fc1_swiglu(h.view(), w.view(), out.out()).ok());
    REQUIRE(gemm::fc1_swiglu(h.view(), w.view(), again.out()).ok());
    REQUIRE(gemm::fc1_swiglu(h.view(), w_swapped.view(), swapped.out(), GluOrder::value_gate).ok());
    CHECK_LAUNCH();
    const Matrix got = fetch_written(out);
    CHECK(bitwise_equal(out, again));
    CHECK(bitwise_equal(out, swapped));
    if (m == 70 || m == 925) {  // every tile, whichever the launcher took (kernel.hpp): the same bits
      const RestoreSwappedTiles restore;
      for (gemm::SwappedTiles choice : kEveryTile) {
        CAPTURE(int(choice));
        gemm::swapped_tiles() = choice;
        const DevMatrix other = poisoned_output(DType::bf16, m, d.ffn);
        REQUIRE(gemm::fc1_swiglu(h.view(), w.view(), other.out()).ok());
        CHECK_LAUNCH();
        CHECK(bitwise_equal(out, other));
      }
    }
    const auto rows = sample_rows(m, fresh_seed());
    const Ref ref = ref_glu(ref_gemm(h.host, w.host, rows), Activation::silu, GluOrder::gate_value);
    check_close(got, ref, "fc1_swiglu");
    Ref unfused = ref_glu(take_rows(cublaslt_gemm(h, w), rows), Activation::silu, GluOrder::gate_value);
    round_all(unfused, DType::bf16);
    check_not_worse_than_cublaslt(take_rows(got, rows), unfused, ref, "fc1_swiglu");
  }
}

GPU_TEST_CASE("fc1_swiglu: the tiny fixture configuration") {
  const gemm::H3Dims d = gemm::H3Dims::tiny();
  const DevMatrix w = random_device(DType::bf16, 2 * d.ffn, d.hidden, 0.125);
  const DevMatrix h = random_device(DType::bf16, 11, d.hidden, 1.0);
  const DevMatrix out = poisoned_output(DType::bf16, 11, d.ffn);
  REQUIRE(gemm::fc1_swiglu(h.view(), w.view(), out.out(), GluOrder::gate_value, nullptr, d).ok());
  CHECK_LAUNCH();
  const auto rows = sample_rows(11, 0);
  check_close(fetch_written(out), ref_glu(ref_gemm(h.host, w.host, rows), Activation::silu, GluOrder::gate_value),
              "fc1 tiny");
}

// ---- argument checks (CPU; validation_testing.hpp) ----
namespace validation_cases {
using namespace fusekit;
using namespace fusekit::gemm;
using namespace fusekit::test::validation;

TEST_CASE("linear_glu: half-width output, W rows a multiple of 16") {
  CHECK(linear_glu(a_ok(), w_ok(), {at(16384), DType::bf16, M, N, 0}).code() == Errc::bad_shape);
  CHECK(linear_glu(a_ok(), w_ok(), {at(16384), DType::bf16, M, N / 2, 0}).code() == Errc::bad_shape);  // N/2 = 12
  const ConstRows w32{at(4096), DType::bf16, 32, K, 0};
  CHECK_PASSES_VALIDATION(linear_glu(a_ok(), w32, {at(16384), DType::bf16, M, 16, 0}));
  CHECK(linear_glu(a_ok(), w32, {at(16384 + 8), DType::bf16, M, 16, 0}).code() == Errc::misaligned);
  GluOptions opt;
  opt.bias = {at(16384 + 16), DType::bf16, 32};  // inside the output
  CHECK(linear_glu(a_ok(), w32, {at(16384), DType::bf16, M, 16, 0}, opt).code() == Errc::aliasing);
  opt.bias = {nullptr, DType::bf16, 32};
  CHECK(linear_glu(a_ok(), w32, {at(16384), DType::bf16, M, 16, 0}, opt).code() == Errc::null_pointer);
}

TEST_CASE("linear_glu and fc1_swiglu: M = 0 is a no-op that needs no GPU") {
  const ConstRows w32{at(4096), DType::bf16, 32, K, 0};
  CHECK(linear_glu({nullptr, DType::bf16, 0, K, 0}, w32, {nullptr, DType::bf16, 0, 16, 0}).ok());
  const H3Dims tiny = H3Dims::tiny();
  const ConstRows w_fc1{at(8192), DType::bf16, 2 * tiny.ffn, tiny.hidden, 0};
  CHECK(fc1_swiglu({nullptr, DType::bf16, 0, tiny.hidden, 0}, w_fc1, {nullptr, DType::bf16, 0, tiny.ffn, 0},
                   GluOrder::gate_value, nullptr, tiny)
            .ok());
}

TEST_CASE("fc1_swiglu checks the H3 block's shape") {
  const H3Dims tiny = H3Dims::tiny();
  const ConstRows h{at(0), DType::bf16, M, tiny.hidden, 0};
  const ConstRows w_fc1{at(8192), DType::bf16, 2 * tiny.ffn, tiny.hidden, 0};
  const Rows out{at(65536 * 4), DType::bf16, M, tiny.ffn, 0};
  CHECK_PASSES_VALIDATION(fc1_swiglu(h, w_fc1, out, GluOrder::gate_value, nullptr, tiny));
  CHECK(fc1_swiglu(h, w_fc1, out).code() == Errc::bad_shape);  // the full-size block expects 28672 x 5376
}

}  // namespace validation_cases
