// GPU tests of the QKV epilogue: per-head RMSNorm and rotary as single nodes (composed here
// into custom epilogues, no kernel touched), the QkvHeads node on both of its paths,
// linear_qkv, and the qkv_proj preset at every H3 token count; fused qkv == three separate
// GEMMs on the thirds of W, bitwise. At the end, linear_qkv's argument checks (CPU).
#include "fusekit/gemm.hpp"
#include "gemm_testing.hpp"
#include "validation_testing.hpp"

#include <algorithm>
#include <cmath>

using namespace fusekit;
using namespace fusekit::test;
using namespace fusekit::gemm;

namespace {

std::pair<DevMatrix, DevMatrix> rotary_tables(std::int64_t m, int rot) {
  auto [c, s] = rotary_matrices(m, rot);
  return {upload(std::move(c)), upload(std::move(s))};
}

Ref cols_of(const Ref& y, std::int64_t begin, std::int64_t n) {
  Ref out{y.rows, n, std::vector<double>(y.rows.size() * n)};
  for (std::size_t i = 0; i < y.rows.size(); ++i)
    for (std::int64_t c = 0; c < n; ++c) out.at(i, c) = y.at(i, begin + c);
  return out;
}

GemmOperands<bf16_t> ops(const DevMatrix& a, const bf16_t* w, std::int64_t n) {
  return {static_cast<const bf16_t*>(a.buf.get()), w, a.host.rows, n, a.host.cols, a.host.cols, a.host.cols};
}

// A custom epilogue on a * w^T, w a device pointer to n rows of a.cols: launched and checked.
template <class Epi> void run_custom(const DevMatrix& a, const bf16_t* w, std::int64_t n, const typename Epi::Params& p) {
  DeviceInfo device;
  REQUIRE(current_device(device).ok());
  const Status st = launch_gemm<bf16_t, Epi>(ops(a, w, n), p, device, nullptr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK_LAUNCH();
}

}  // namespace

GPU_TEST_CASE("HeadRmsNorm and Rotary alone, composed into custom epilogues") {
  on_every_tile([] {
    const std::int64_t m = 45, k = 136, n = 256;
    for (int head_dim : {32, 64, 128}) {
      CAPTURE(head_dim);
      const DevMatrix a = random_device(DType::bf16, m, k, 1.0), w = random_device(DType::bf16, n, k, 0.1);
      const DevMatrix weight = random_device(DType::bf16, 1, head_dim, 0.2, 1.0);
      const auto [cos, sin] = rotary_tables(m, head_dim * 3 / 4);
      const auto rows = sample_rows(m, 0);

      using NormOnly = Epilogue<HeadRmsNorm<bf16_t>, StoreRows<bf16_t>>;
      const DevMatrix normed = poisoned_output(DType::bf16, m, n);
      // Norm heads in [head_dim, n): the first head stays raw, so the column range is tested too.
      const NormOnly::Params np({static_cast<const bf16_t*>(weight.buf.get()), 1e-5f, head_dim, head_dim, n},
                                {static_cast<bf16_t*>(normed.buf.get()), n});
      run_custom<NormOnly>(a, w.buf.as<bf16_t>(), n, np);
      Ref ref = ref_gemm(a.host, w.host, rows);
      ref_head_rmsnorm(ref, head_dim, n, head_dim, weight.host, 1e-5);
      check_close(fetch_written(normed), ref, "HeadRmsNorm alone");

      using RotaryOnly = Epilogue<Rotary, StoreRows<bf16_t>>;
      const DevMatrix rotated = poisoned_output(DType::bf16, m, n);
      const int rot = head_dim * 3 / 4;
      const RotaryOnly::Params rp({static_cast<const float*>(cos.buf.get()), static_cast<const float*>(sin.buf.get()), rot,
                                   rot, rot, head_dim, 0, n},
                                  {static_cast<bf16_t*>(rotated.buf.get()), n});
      run_custom<RotaryOnly>(a, w.buf.as<bf16_t>(), n, rp);
      Ref rref = ref_gemm(a.host, w.host, rows);
      ref_rotary(rref, 0, n, head_dim, rot, cos.host, sin.host);
      check_close(fetch_written(rotated), rref, "Rotary alone");
    }
  });}

// QkvHeads on three parts of two heads each (q: norm + rotary, k: norm + rotary, v: plain), on
// random cos/sin tables whose halves differ (so x1/x2 mix-ups show). 128-wide heads with rot_dim
// a multiple of 8 take the warp-per-head path, the rest the composed nodes; a padded table row
// (ld = rot + 1) takes the scalar table loads. 109 rows: the Hopper kernel's second consumer gets a
// tile starting past row 0 with 45 rows in it. One part alone == the same part inside three.
GPU_TEST_CASE("QkvHeads: warp-per-head and composed paths, odd tables, one part == three parts") {
  on_every_tile([] {
    const std::int64_t m = 109, k = 136;
    struct Case {
      int head_dim, rot;
      bool padded_table;
    };
    for (const Case c : {Case{128, 96, false}, Case{128, 128, false}, Case{128, 40, false},
                         Case{128, 40, true}, Case{128, 0, false}, Case{128, 100, false}, Case{64, 48, true},
                         Case{32, 24, false}, Case{16, 8, false}, Case{8, 4, true}}) {
      for (DType out_t : {DType::bf16, DType::f32}) {
        CAPTURE(c.head_dim);
        CAPTURE(c.rot);
        CAPTURE(c.padded_table);
        const std::int64_t part = 2 * c.head_dim, n = 3 * part, ld_table = c.rot + (c.padded_table ? 1 : 0);
        const DevMatrix a = random_device(DType::bf16, m, k, 1.0), w = random_device(DType::bf16, n, k, 0.1);
        const DevMatrix qn = random_device(DType::bf16, 1, c.head_dim, 0.2, 1.0), kn = random_device(DType::bf16, 1, c.head_dim, 0.2, 1.0);
        const DevMatrix cos = random_device(DType::f32, m, std::max<std::int64_t>(ld_table, 1), 0.6),
                        sin = random_device(DType::f32, m, std::max<std::int64_t>(ld_table, 1), 0.6);
        DevMatrix out[3] = {poisoned_output(out_t, m, part), poisoned_output(out_t, m, part), poisoned_output(out_t, m, part)};
        auto launch = [&]<class OutT>(OutT) {
          using Heads = QkvHeads<bf16_t, OutT>;
          typename Heads::Params p;
          const DevMatrix* norms[3] = {&qn, &kn, nullptr};
          for (int i = 0; i < 3; ++i)
            p.parts[i] = {static_cast<OutT*>(out[i].buf.get()), part,
                          norms[i] ? static_cast<const bf16_t*>(norms[i]->buf.get()) : nullptr, i < 2};
          p.part_cols = part;
          p.head_dim = c.head_dim;
          p.cos = static_cast<const float*>(cos.buf.get()), p.sin = static_cast<const float*>(sin.buf.get());
          p.ld_cos = p.ld_sin = ld_table;
          p.rot_dim = c.rot;
          CHECK(Heads::whole_head_lanes(p) == (c.head_dim == 128 && c.rot % 8 == 0));
          run_custom<Epilogue<Heads>>(a, w.buf.as<bf16_t>(), n, typename Epilogue<Heads>::Params(p));
          // The k part alone, on W's middle third.
          DevMatrix alone = poisoned_output(out_t, m, part);
          typename Heads::Params one = p;
          one.parts[0] = {static_cast<OutT*>(alone.buf.get()), part, static_cast<const bf16_t*>(kn.buf.get()), true};
          one.count = 1;
          run_custom<Epilogue<Heads>>(a, w.buf.as<bf16_t>() + part * k, part, typename Epilogue<Heads>::Params(one));
          CHECK_MESSAGE(bitwise_equal(alone, out[1]), "k alone != k inside q, k, v");
        };
        if (out_t == DType::f32)
          launch(float{});
        else
          launch(bf16_t{});
        const auto rows = sample_rows(m, 0);
        Ref ref = ref_gemm(a.host, w.host, rows);
        ref_head_rmsnorm(ref, 0, part, c.head_dim, qn.host, 1e-5);
        ref_head_rmsnorm(ref, part, 2 * part, c.head_dim, kn.host, 1e-5);
        if (c.rot > 0) ref_rotary(ref, 0, 2 * part, c.head_dim, c.rot, cos.host, sin.host);
        const char* names[3] = {"q", "k", "v"};
        for (int i = 0; i < 3; ++i) check_close(fetch_written(out[i]), cols_of(ref, i * part, part), names[i]);
      }
    }
  });}

GPU_TEST_CASE("linear_qkv: tiny configuration, with and without norm and rotary, f32 output") {
  on_every_tile([] {
    const H3Dims d = H3Dims::tiny();
    const std::int64_t part = d.heads * d.head_dim;
    for (bool full : {true, false})
      for (DType out_t : {DType::bf16, DType::f32}) {
        CAPTURE(full);
        const std::int64_t m = 23;
        const DevMatrix h = random_device(DType::bf16, m, d.hidden, 1.0), w = random_device(DType::bf16, 3 * part, d.hidden, 0.125);
        const DevMatrix qn = random_device(DType::bf16, 1, d.head_dim, 0.2, 1.0), kn = random_device(DType::bf16, 1, d.head_dim, 0.2, 1.0);
        const auto [cos, sin] = rotary_tables(m, d.rotary_dim);
        const DevMatrix q = poisoned_output(out_t, m, part), k = poisoned_output(out_t, m, part), v = poisoned_output(out_t, m, part);
        QkvOptions opt;
        opt.heads = d.heads;
        opt.head_dim = d.head_dim;
        if (full) {
          opt.q_norm = {qn.buf.get(), DType::bf16, d.head_dim};
          opt.k_norm = {kn.buf.get(), DType::bf16, d.head_dim};
          opt.rotary_dim = d.rotary_dim;
          opt.cos = cos.view();
          opt.sin = sin.view();
        }
        const Status st = linear_qkv(h.view(), w.view(), {q.out(), k.out(), v.out()}, opt);
        REQUIRE_MESSAGE(st.ok(), st.to_string());
        CHECK_LAUNCH();
        const auto rows = sample_rows(m, 0);
        Ref ref = ref_gemm(h.host, w.host, rows);
        ref_qkv_epilogue(ref, part, d.head_dim, full ? d.rotary_dim : 0, full ? &qn.host : nullptr,
                         full ? &kn.host : nullptr, cos.host, sin.host, d.eps);
        check_close(fetch_written(q), cols_of(ref, 0, part), "q");
        check_close(fetch_written(k), cols_of(ref, part, part), "k");
        check_close(fetch_written(v), cols_of(ref, 2 * part, part), "v");
      }
  });}

GPU_TEST_CASE("qkv_proj: every H3 token count; fused == separate thirds; repeatable; vs cuBLASLt") {
  const H3Dims d;
  const std::int64_t part = std::int64_t(d.heads) * d.head_dim;
  const DevMatrix w = random_device(DType::bf16, 3 * part, d.hidden, 1.0 / std::sqrt(double(d.hidden)));
  const DevMatrix qn = random_device(DType::bf16, 1, d.head_dim, 0.2, 1.0), kn = random_device(DType::bf16, 1, d.head_dim, 0.2, 1.0);
  const ConstVec q_norm{qn.buf.get(), DType::bf16, d.head_dim}, k_norm{kn.buf.get(), DType::bf16, d.head_dim};
  const auto* w_ptr = static_cast<const bf16_t*>(w.buf.get());
  for (std::int64_t m : {1, 37, 70, 925, 4096}) {
    CAPTURE(m);
    const DevMatrix h = random_device(DType::bf16, m, d.hidden, 1.0);
    const auto [cos, sin] = rotary_tables(m, d.rotary_dim);
    DevMatrix out[3] = {poisoned_output(DType::bf16, m, part), poisoned_output(DType::bf16, m, part),
                        poisoned_output(DType::bf16, m, part)};
    DevMatrix again[3] = {poisoned_output(DType::bf16, m, part), poisoned_output(DType::bf16, m, part),
                          poisoned_output(DType::bf16, m, part)};
    REQUIRE(qkv_proj(h.view(), w.view(), {out[0].out(), out[1].out(), out[2].out()}, q_norm, k_norm, cos.view(),
                     sin.view())
                .ok());
    REQUIRE(qkv_proj(h.view(), w.view(), {again[0].out(), again[1].out(), again[2].out()}, q_norm, k_norm,
                     cos.view(), sin.view())
                .ok());
    CHECK_LAUNCH();

    // Three separate GEMMs on the thirds of W: q and k through the qkv node on one part each, v plain.
    using Heads = QkvHeads<bf16_t, bf16_t>;
    DevMatrix sep[3] = {poisoned_output(DType::bf16, m, part), poisoned_output(DType::bf16, m, part),
                        poisoned_output(DType::bf16, m, part)};
    const ConstVec* norms[2] = {&q_norm, &k_norm};
    for (int i = 0; i < 2; ++i) {
      Heads::Params p;
      p.parts[0] = {static_cast<bf16_t*>(sep[i].buf.get()), part, static_cast<const bf16_t*>(norms[i]->data), true};
      p.count = 1;
      p.part_cols = part;
      p.head_dim = d.head_dim;
      p.eps = d.eps;
      p.cos = static_cast<const float*>(cos.buf.get()), p.sin = static_cast<const float*>(sin.buf.get());
      p.ld_cos = p.ld_sin = p.rot_dim = d.rotary_dim;
      run_custom<Epilogue<Heads>>(h, w_ptr + i * part * d.hidden, part, Epilogue<Heads>::Params(p));
    }
    REQUIRE(linear(h.view(), {w_ptr + 2 * part * d.hidden, DType::bf16, part, d.hidden, 0}, sep[2].out()).ok());
    CHECK_LAUNCH();

    const auto rows = sample_rows(m, fresh_seed());
    Ref ref = ref_gemm(h.host, w.host, rows);
    ref_qkv_epilogue(ref, part, d.head_dim, d.rotary_dim, &qn.host, &kn.host, cos.host, sin.host, d.eps);
    Ref unfused = take_rows(cublaslt_gemm(h, w), rows);
    ref_qkv_epilogue(unfused, part, d.head_dim, d.rotary_dim, &qn.host, &kn.host, cos.host, sin.host, d.eps);
    round_all(unfused, DType::bf16);
    Ref got_all{rows, 3 * part, std::vector<double>(rows.size() * 3 * part)};
    const char* names[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i) {
      const Matrix got = fetch_written(out[i]);
      CHECK_MESSAGE(bitwise_equal(out[i], again[i]), names[i] << " not repeatable");
      CHECK_MESSAGE(bitwise_equal(out[i], sep[i]), names[i] << " fused != separate");
      check_close(got, cols_of(ref, i * part, part), names[i]);
      for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::int64_t c = 0; c < part; ++c) got_all.at(r, i * part + c) = got.at(rows[r], c);
    }
    check_not_worse_than_cublaslt(got_all, unfused, ref, "qkv_proj");
    if (m == 70 || m == 925) {  // every tile, whichever the launcher took (kernel.hpp): the same bits
      const RestoreSwappedTiles restore;
      for (SwappedTiles choice : kEveryTile) {
        CAPTURE(int(choice));
        swapped_tiles() = choice;
        DevMatrix other[3] = {poisoned_output(DType::bf16, m, part), poisoned_output(DType::bf16, m, part),
                              poisoned_output(DType::bf16, m, part)};
        REQUIRE(qkv_proj(h.view(), w.view(), {other[0].out(), other[1].out(), other[2].out()}, q_norm, k_norm,
                         cos.view(), sin.view())
                    .ok());
        CHECK_LAUNCH();
        for (int i = 0; i < 3; ++i) CHECK_MESSAGE(bitwise_equal(out[i], other[i]), names[i] << ": another tile differs");
      }
    }
  }
}

// ---- argument checks (CPU; validation_testing.hpp) ----
namespace validation_cases {
using namespace fusekit;
using namespace fusekit::gemm;
using namespace fusekit::test::validation;

// 2 heads of 32: W of 3 x 64 rows, and q, k, v side by side in the arena.
const ConstRows qkv_w{at(4096), DType::bf16, 3 * 2 * 32, K, 0};
QkvOutputs qkv_out() {
  return {{at(65536), DType::bf16, M, 64, 0}, {at(65536 + 4096), DType::bf16, M, 64, 0},
          {at(65536 + 8192), DType::bf16, M, 64, 0}};
}
QkvOptions two_heads() {
  QkvOptions opt;
  opt.heads = 2;
  opt.head_dim = 32;
  return opt;
}

TEST_CASE("linear_qkv: heads, rotary and output checks") {
  const ConstRows w = qkv_w;
  const QkvOutputs out = qkv_out();
  QkvOptions opt = two_heads();
  CHECK_PASSES_VALIDATION(linear_qkv(a_ok(), w, out, opt));
  opt.head_dim = 48;  // does not divide the 128-column tile
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_argument);
  opt.head_dim = 32;
  opt.heads = 3;
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_shape);
  opt.heads = 2;
  opt.rotary_dim = 7;
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_argument);
  opt.rotary_dim = 40;
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_argument);
  opt.rotary_dim = 16;
  opt.cos = {at(200000), DType::f32, M, 16, 0};
  opt.sin = {at(210000), DType::f32, M, 8, 0};
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_shape);
  opt.sin = {at(210000), DType::bf16, M, 16, 0};
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::unsupported_dtype);
  opt.sin = {at(210000), DType::f32, M, 16, 0};
  CHECK_PASSES_VALIDATION(linear_qkv(a_ok(), w, out, opt));
  opt.eps = 0.f;
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_argument);
  opt.eps = 1e-5f;
  opt.q_norm = {at(220000), DType::bf16, 16};
  CHECK(linear_qkv(a_ok(), w, out, opt).code() == Errc::bad_shape);
  opt.q_norm = {};
  QkvOutputs overlapping = out;
  overlapping.k.data = at(65536 + 64);  // k starts inside q
  CHECK(linear_qkv(a_ok(), w, overlapping, opt).code() == Errc::aliasing);
  QkvOutputs mixed = out;
  mixed.v.dtype = DType::f32;
  CHECK(linear_qkv(a_ok(), w, mixed, opt).code() == Errc::unsupported_dtype);
}

TEST_CASE("linear_qkv: outputs apart from the norm weights and the rotary tables; null vectors with a size") {
  const ConstRows w = qkv_w;
  const QkvOutputs out = qkv_out();
  QkvOptions opt = two_heads();
  opt.rotary_dim = 16;
  opt.cos = {at(200000), DType::f32, M, 16, 0};
  opt.sin = {at(210000), DType::f32, M, 16, 0};
  opt.q_norm = {at(220000), DType::bf16, 32};
  opt.k_norm = {at(230000), DType::bf16, 32};
  CHECK_PASSES_VALIDATION(linear_qkv(a_ok(), w, out, opt));
  QkvOptions bad = opt;
  bad.k_norm = {at(65536 + 8192 + 64), DType::bf16, 32};  // inside v
  Status s = linear_qkv(a_ok(), w, out, bad);
  CHECK(s.code() == Errc::aliasing);
  CHECK(s.message() == "linear_qkv: v overlaps k_norm (they must be disjoint)");
  bad = opt;
  bad.cos = {at(65536 + 16), DType::f32, M, 16, 0};  // inside q
  CHECK(linear_qkv(a_ok(), w, out, bad).code() == Errc::aliasing);
  bad = opt;
  bad.sin = {at(65536 + 4096 + 32), DType::f32, M, 16, 0};  // inside k
  CHECK(linear_qkv(a_ok(), w, out, bad).code() == Errc::aliasing);
  bad = opt;
  bad.q_norm = {nullptr, DType::bf16, 32};
  CHECK(linear_qkv(a_ok(), w, out, bad).code() == Errc::null_pointer);
}

TEST_CASE("linear_qkv and qkv_proj: M = 0 is a no-op that needs no GPU") {
  const ConstRows a{nullptr, DType::bf16, 0, K, 0};
  const ConstRows w = qkv_w;
  const Rows none{nullptr, DType::bf16, 0, 64, 0};
  QkvOptions opt = two_heads();
  opt.rotary_dim = 16;
  opt.cos = {nullptr, DType::f32, 0, 16, 0};  // cos and sin of no tokens
  opt.sin = {nullptr, DType::f32, 0, 16, 0};
  CHECK(linear_qkv(a, w, {none, none, none}, opt).ok());
  const H3Dims tiny = H3Dims::tiny();
  const ConstRows h{nullptr, DType::bf16, 0, tiny.hidden, 0};
  const ConstRows w_qkv{at(8192), DType::bf16, 3 * tiny.heads * tiny.head_dim, tiny.hidden, 0};
  const Rows part{nullptr, DType::bf16, 0, tiny.heads * tiny.head_dim, 0};
  const ConstVec norm{at(220000), DType::bf16, tiny.head_dim};
  const ConstRows table{nullptr, DType::f32, 0, tiny.rotary_dim, 0};
  CHECK(qkv_proj(h, w_qkv, {part, part, part}, norm, norm, table, table, nullptr, tiny).ok());
}

}  // namespace validation_cases
