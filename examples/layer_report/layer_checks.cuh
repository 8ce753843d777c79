// The layers section: for one block's weights and one token count, each of the four linears is
// run through fusekit's public presets and through the baseline (cuBLASLt's bare GEMM + the
// unfused epilogue), checked (repeatable, every output element written, error vs a float64 host
// reference on sampled rows, fused == separate, fc1 native == diffusers swapped) and timed.
// Errors from CUDA, cuBLASLt or a fusekit Status are thrown as std::runtime_error.
#pragma once

#include "graph_timer.cuh"
#include "report_json.hpp"
#include "unfused_epilogue.cuh"

#include "cublaslt_gemm.hpp"  // test/gemm: the baseline's GEMM
#include "reference.hpp"      // test/gemm: float64 references, random inputs, sampled rows

#include "fusekit/checkpoint/h3_preset.hpp"
#include "fusekit/checkpoint/sharded_checkpoint.hpp"
#include "fusekit/gemm.hpp"

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusekit::layer_report {

using test::Matrix;
using test::Ref;

inline void throw_if_failed(const Status& s, const char* what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.to_string());
}

// An owning device allocation. Copies go through the legacy stream; the report's work runs on a
// blocking stream, so the two are ordered without explicit synchronization.
class DeviceBytes {
 public:
  DeviceBytes() = default;
  explicit DeviceBytes(std::size_t bytes) : bytes_(bytes) {
    if (bytes) cuda_check(cudaMalloc(&data_, bytes), "cudaMalloc");
  }
  DeviceBytes(DeviceBytes&& o) noexcept { *this = std::move(o); }
  DeviceBytes& operator=(DeviceBytes&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  ~DeviceBytes() {
    if (data_) cudaFree(data_);
  }
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host) { cuda_check(cudaMemcpy(data_, host, bytes_, cudaMemcpyHostToDevice), "upload"); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> out(bytes_);
    if (bytes_) cuda_check(cudaMemcpy(out.data(), data_, bytes_, cudaMemcpyDeviceToHost), "download");
    return out;
  }
  // 0xFF bytes: NaN in bf16 and f32, so an element no kernel wrote is found afterwards.
  void poison() { cuda_check(cudaMemset(data_, 0xFF, bytes_), "poison"); }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// A row-major device tensor with its exact values on the host (host.v may be left empty).
struct DevTensor {
  Matrix host;
  DeviceBytes dev;
  ConstRows view() const { return {dev.get(), host.dtype, host.rows, host.cols, 0}; }
  Rows out() const { return {dev.get(), host.dtype, host.rows, host.cols, 0}; }
  ConstVec vec() const { return {dev.get(), host.dtype, host.rows * host.cols}; }
  template <class T> T* as() const { return static_cast<T*>(dev.get()); }
};

inline DevTensor upload(Matrix m) {
  DevTensor t{std::move(m), DeviceBytes(0)};
  t.dev = DeviceBytes(t.host.bytes());
  t.dev.upload(test::to_bytes(t.host).data());
  return t;
}

inline DevTensor poisoned(DType dtype, std::int64_t rows, std::int64_t cols) {
  DevTensor t{Matrix{dtype, rows, cols, {}}, DeviceBytes(rows * cols * dtype_size(dtype))};
  t.dev.poison();
  return t;
}

inline DevTensor device_copy(const DevTensor& src) {
  DevTensor t{src.host, DeviceBytes(src.dev.bytes())};
  cuda_check(cudaMemcpy(t.dev.get(), src.dev.get(), src.dev.bytes(), cudaMemcpyDeviceToDevice), "device copy");
  return t;
}

// A bf16 checkpoint tensor (1-D as one row) on the device; its host values too when asked.
inline DevTensor load_tensor(const checkpoint::Checkpoint& c, const std::string& name, bool host_values) {
  const checkpoint::TensorView v = c.find(name);
  if (!v.spec) throw std::runtime_error("checkpoint " + c.shards().front().path() + " has no tensor " + name);
  if (v.spec->dtype != checkpoint::TensorDType::BF16 || v.spec->shape.empty() || v.spec->shape.size() > 2)
    throw std::runtime_error(describe(*v.spec) + ": expected a 1-D or 2-D BF16 tensor");
  const bool vector = v.spec->shape.size() == 1;
  DevTensor t{Matrix{DType::bf16, vector ? 1 : v.spec->shape[0], vector ? v.spec->shape[0] : v.spec->shape[1], {}},
              DeviceBytes(v.bytes.size())};
  t.dev.upload(v.bytes.data());
  if (host_values) {
    // Safetensors data has no alignment promise: read each element's bits with memcpy.
    t.host.v.resize(v.bytes.size() / 2);
    test::parallel_for(t.host.rows, [&](std::int64_t r) {
      for (std::int64_t i = r * t.host.cols; i < (r + 1) * t.host.cols; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, v.bytes.data() + 2 * i, 2);
        const std::uint32_t f32_bits = std::uint32_t(bits) << 16;
        std::memcpy(&t.host.v[i], &f32_bits, 4);
      }
    });
  }
  return t;
}

// The four linears' weights of one main block: native (what fusekit runs) and the diffusers
// tensors they were mapped from (for the two equality checks).
struct BlockWeights {
  DevTensor qkv, out, fc1, fc2, q_norm, k_norm;  // native, with host values
  DevTensor to_q, to_k, to_v, fc1_value_gate;    // diffusers, device only
};

inline BlockWeights load_block(const checkpoint::Checkpoint& native, const checkpoint::Checkpoint& diffusers,
                               std::int64_t block) {
  const std::string n = "blocks." + std::to_string(block) + ".", d = "transformer_blocks." + std::to_string(block) + ".";
  BlockWeights w;
  w.qkv = load_tensor(native, n + "attn.qkv_proj.weight", true);
  w.out = load_tensor(native, n + "attn.out_proj.weight", true);
  w.fc1 = load_tensor(native, n + "mlp.fc1.weight", true);
  w.fc2 = load_tensor(native, n + "mlp.fc2.weight", true);
  w.q_norm = load_tensor(native, n + "attn.q_norm.weight", true);
  w.k_norm = load_tensor(native, n + "attn.k_norm.weight", true);
  w.to_q = load_tensor(diffusers, d + "attn.to_q.weight", false);
  w.to_k = load_tensor(diffusers, d + "attn.to_k.weight", false);
  w.to_v = load_tensor(diffusers, d + "attn.to_v.weight", false);
  w.fc1_value_gate = load_tensor(diffusers, d + "ff.net.0.proj.weight", false);
  return w;
}

// The presets' dimensions for a checkpoint config (rotary: 3 axes x 2 x the rope frequencies).
inline gemm::H3Dims h3_dims(const checkpoint::H3Config& c) {
  gemm::H3Dims d;
  d.hidden = static_cast<int>(c.hidden);
  d.heads = static_cast<int>(c.heads);
  d.head_dim = static_cast<int>(c.head_dim);
  d.rotary_dim = static_cast<int>(6 * c.rope.count);
  d.ffn = static_cast<int>(c.ffn);
  return d;
}

struct LayerContext {
  gemm::H3Dims dims;
  cudaStream_t stream = nullptr;  // blocking (see DeviceBytes)
  DeviceInfo device;  // launch_gemm picks the main loop from it
  int calls_per_replay = 20, replays = 15;
  std::uint64_t seed = 1;
  std::vector<std::string>* problems = nullptr;
};

namespace detail {

inline void finish(const LayerContext& ctx, const char* what) {
  cuda_check(cudaGetLastError(), what);
  cuda_check(cudaStreamSynchronize(ctx.stream), what);
}

// Elements still holding the poison pattern (bf16 outputs).
inline std::int64_t unwritten(const DevTensor& t) {
  const auto bytes = t.dev.download();
  std::int64_t n = 0;
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) n += bytes[i] == 0xFF && bytes[i + 1] == 0xFF;
  return n;
}

inline bool same_bytes(const DevTensor& a, const DevTensor& b) { return a.dev.download() == b.dev.download(); }

inline Matrix fetch(const DevTensor& t) {
  return test::from_bytes(t.host.dtype, t.host.rows, t.host.cols, t.dev.download());
}

struct Columns {
  const Matrix* m;
  std::int64_t first, count;
};

// The sampled rows of one or more column ranges, side by side, as doubles.
inline Ref gather(const std::vector<std::int64_t>& rows, const std::vector<Columns>& parts) {
  std::int64_t cols = 0;
  for (const Columns& p : parts) cols += p.count;
  Ref y{rows, cols, std::vector<double>(rows.size() * cols)};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::int64_t at = 0;
    for (const Columns& p : parts)
      for (std::int64_t c = 0; c < p.count; ++c) y.at(i, at++) = p.m->at(rows[i], p.first + c);
  }
  return y;
}

class Problems {
 public:
  Problems(const LayerContext& ctx, const LayerResult& r)
      : list_(ctx.problems),
        where_("block " + std::to_string(r.block) + ", " + std::to_string(r.tokens) + " tokens, " + r.linear + ": ") {}
  void expect(bool ok, const std::string& what) {
    if (!ok) list_->push_back(where_ + what);
  }
  void all_written(const DevTensor& t, const char* name) {
    const std::int64_t n = unwritten(t);
    expect(n == 0, std::string(name) + ": " + std::to_string(n) + " of " + std::to_string(t.host.rows * t.host.cols) +
                       " output elements not written");
  }
  // fusekit's error no worse than 1.1x the baseline's (compared where the ratio is stable).
  void accuracy(const LayerResult& r, std::size_t elements) {
    expect(std::isfinite(r.rel_err) && std::isfinite(r.baseline_rel_err), "rel_err is not finite");
    if (elements >= 4096)
      expect(r.rel_err <= 1.1 * r.baseline_rel_err, "fusekit rel_err " + std::to_string(r.rel_err) +
                                                        " > 1.1 x the baseline's " + std::to_string(r.baseline_rel_err));
  }

 private:
  std::vector<std::string>* list_;
  std::string where_;
};

inline LayerResult result_of(std::int64_t block, std::int64_t tokens, const char* linear) {
  LayerResult r;
  r.block = block;
  r.tokens = tokens;
  r.linear = linear;
  return r;
}

inline std::uint64_t case_seed(const LayerContext& ctx, std::int64_t block, std::int64_t tokens, int linear) {
  std::seed_seq seq{std::uint32_t(ctx.seed), std::uint32_t(ctx.seed >> 32), std::uint32_t(block),
                    std::uint32_t(tokens), std::uint32_t(linear)};
  std::uint32_t words[2];
  seq.generate(words, words + 2);
  return (std::uint64_t(words[0]) << 32) | words[1];
}

}  // namespace detail

// Steps 2-4 of the block: fused q/k/v with per-head RMSNorm and rotary.
inline LayerResult measure_qkv(const LayerContext& ctx, const BlockWeights& w, std::int64_t block, std::int64_t m) {
  const gemm::H3Dims& d = ctx.dims;
  const std::int64_t part = std::int64_t(d.heads) * d.head_dim;
  LayerResult r = detail::result_of(block, m, "qkv_proj");
  detail::Problems problems(ctx, r);
  const std::uint64_t seed = detail::case_seed(ctx, block, m, 0);
  const DevTensor h = upload(test::random_matrix(DType::bf16, m, d.hidden, seed, 1.0));
  auto [cos_host, sin_host] = test::rotary_matrices(m, d.rotary_dim);
  const DevTensor cos = upload(std::move(cos_host)), sin = upload(std::move(sin_host));

  auto fused_into = [&](const DevTensor* qkv, cudaStream_t s) {
    throw_if_failed(gemm::qkv_proj(h.view(), w.qkv.view(), {qkv[0].out(), qkv[1].out(), qkv[2].out()}, w.q_norm.vec(),
                                   w.k_norm.vec(), cos.view(), sin.view(), s, d),
                    "qkv_proj");
  };
  const DevTensor first[3] = {poisoned(DType::bf16, m, part), poisoned(DType::bf16, m, part), poisoned(DType::bf16, m, part)};
  const DevTensor again[3] = {poisoned(DType::bf16, m, part), poisoned(DType::bf16, m, part), poisoned(DType::bf16, m, part)};
  fused_into(first, ctx.stream);
  fused_into(again, ctx.stream);

  // Three separate GEMMs on the diffusers to_q / to_k / to_v: q and k through the qkv node on
  // one part each (its norm + rotary), v plain.
  using Heads = gemm::QkvHeads<bf16_t, bf16_t>;
  const DevTensor separate[3] = {poisoned(DType::bf16, m, part), poisoned(DType::bf16, m, part),
                                 poisoned(DType::bf16, m, part)};
  const DevTensor* thirds[2] = {&w.to_q, &w.to_k};
  const DevTensor* norms[2] = {&w.q_norm, &w.k_norm};
  for (int i = 0; i < 2; ++i) {
    const gemm::GemmOperands<bf16_t> op{h.as<const bf16_t>(), thirds[i]->as<const bf16_t>(), m, part, d.hidden,
                                        d.hidden, d.hidden};
    Heads::Params p;
    p.parts[0] = {separate[i].as<bf16_t>(), part, norms[i]->as<const bf16_t>(), true};
    p.count = 1;
    p.part_cols = part;
    p.head_dim = d.head_dim;
    p.eps = d.eps;
    p.cos = cos.as<const float>(), p.sin = sin.as<const float>();
    p.ld_cos = p.ld_sin = p.rot_dim = d.rotary_dim;
    throw_if_failed(gemm::launch_gemm<bf16_t, gemm::Epilogue<Heads>>(op, gemm::Epilogue<Heads>::Params(p), ctx.device,
                                                                      ctx.stream),
                    "separate q/k GEMM");
  }
  throw_if_failed(gemm::linear(h.view(), w.to_v.view(), separate[2].out(), {}, ctx.stream), "separate v GEMM");

  // Baseline: the bare GEMM into y [m, 3 part], then norm and rotary kernels; v is y's last third.
  const DevTensor y = poisoned(DType::bf16, m, 3 * part), bq = poisoned(DType::bf16, m, part),
                  bk = poisoned(DType::bf16, m, part);
  const baseline::CublasLtGemm lt(DType::bf16, m, 3 * part, d.hidden);
  auto unfused = [&](cudaStream_t s) {
    lt.run(h.dev.get(), w.qkv.dev.get(), y.dev.get(), s);
    unfused_qkv(y.as<const bf16_t>(), bq.as<bf16_t>(), bk.as<bf16_t>(), w.q_norm.as<const bf16_t>(),
                w.k_norm.as<const bf16_t>(), cos.as<const float>(), sin.as<const float>(), m, d.heads, d.head_dim,
                d.rotary_dim, d.eps, s);
  };
  unfused(ctx.stream);
  detail::finish(ctx, "qkv_proj checks");

  const char* names[3] = {"q", "k", "v"};
  r.repeatable = true;
  r.fused_equals_separate = true;
  for (int i = 0; i < 3; ++i) {
    problems.all_written(first[i], names[i]);
    r.repeatable = r.repeatable && detail::same_bytes(first[i], again[i]);
    *r.fused_equals_separate = *r.fused_equals_separate && detail::same_bytes(first[i], separate[i]);
  }
  problems.all_written(y, "baseline GEMM");
  problems.all_written(bq, "baseline q");
  problems.all_written(bk, "baseline k");

  const auto rows = test::sample_rows(m, seed);
  Ref ref = test::ref_gemm(h.host, w.qkv.host, rows);
  test::ref_qkv_epilogue(ref, part, d.head_dim, d.rotary_dim, &w.q_norm.host, &w.k_norm.host, cos.host, sin.host, d.eps);
  const Matrix q = detail::fetch(first[0]), k = detail::fetch(first[1]), v = detail::fetch(first[2]);
  r.rel_err = test::rel_err(detail::gather(rows, {{&q, 0, part}, {&k, 0, part}, {&v, 0, part}}), ref);
  const Matrix yq = detail::fetch(bq), yk = detail::fetch(bk), yv = detail::fetch(y);
  r.baseline_rel_err = test::rel_err(detail::gather(rows, {{&yq, 0, part}, {&yk, 0, part}, {&yv, 2 * part, part}}), ref);
  problems.accuracy(r, ref.v.size());

  const PairTiming t = time_pair([&](cudaStream_t s) { fused_into(first, s); }, unfused, ctx.calls_per_replay,
                                 ctx.replays, ctx.stream);
  r.fusekit_ms = t.first_ms;
  r.baseline_ms = t.second_ms;
  return r;
}

// Steps 6 and 9: x = x + gate[idx[row]] * (a W^T), in place on the residual stream.
using ResidualPreset = Status (*)(const ConstRows&, const ConstRows&, const Rows&, const ConstRows&, const std::int32_t*,
                                  cudaStream_t, const gemm::H3Dims&);

inline LayerResult measure_residual(const LayerContext& ctx, const DevTensor& w, ResidualPreset preset,
                                    const char* linear, int linear_index, std::int64_t block, std::int64_t m) {
  const std::int64_t n = w.host.rows, k = w.host.cols;
  LayerResult r = detail::result_of(block, m, linear);
  detail::Problems problems(ctx, r);
  const std::uint64_t seed = detail::case_seed(ctx, block, m, linear_index);
  const DevTensor a = upload(test::random_matrix(DType::bf16, m, k, seed, 1.0));
  const DevTensor x0 = upload(test::random_matrix(DType::bf16, m, n, seed + 1, 1.0));
  constexpr int kTables = 3;  // one modulation row per modality (video, text, audio)
  const DevTensor gate = upload(test::random_matrix(DType::bf16, kTables, n, seed + 2, 0.5));
  std::vector<std::int32_t> idx_host(m);
  std::mt19937_64 rng(seed + 3);
  for (auto& i : idx_host) i = static_cast<std::int32_t>(rng() % kTables);
  DeviceBytes idx(m * sizeof(std::int32_t));
  idx.upload(idx_host.data());
  const auto* idx_ptr = static_cast<const std::int32_t*>(idx.get());

  const DevTensor x = device_copy(x0), x_again = device_copy(x0);
  auto fused_on = [&](const DevTensor& target, cudaStream_t s) {
    throw_if_failed(preset(a.view(), w.view(), target.out(), gate.view(), idx_ptr, s, ctx.dims), linear);
  };
  fused_on(x, ctx.stream);
  fused_on(x_again, ctx.stream);
  // The same function out of place into a poisoned buffer: shows every element is written.
  const DevTensor out_of_place = poisoned(DType::bf16, m, n);
  gemm::ResidualOptions opt;
  opt.gate = gate.view();
  opt.idx = idx_ptr;
  throw_if_failed(gemm::linear_residual(a.view(), w.view(), x0.view(), out_of_place.out(), opt, ctx.stream),
                  "linear_residual");

  const DevTensor y = poisoned(DType::bf16, m, n), x_base = device_copy(x0);
  const baseline::CublasLtGemm lt(DType::bf16, m, n, k);
  auto unfused = [&](cudaStream_t s) {
    lt.run(a.dev.get(), w.dev.get(), y.dev.get(), s);
    unfused_gated_residual(y.as<const bf16_t>(), gate.as<const bf16_t>(), idx_ptr, x_base.as<bf16_t>(), m, n, s);
  };
  unfused(ctx.stream);
  detail::finish(ctx, linear);

  r.repeatable = detail::same_bytes(x, x_again);
  problems.all_written(out_of_place, "out of place");
  problems.expect(detail::same_bytes(x, out_of_place), "in place != out of place (linear_residual)");
  problems.all_written(y, "baseline GEMM");

  const auto rows = test::sample_rows(m, seed);
  Ref ref = test::ref_gemm(a.host, w.host, rows);
  test::ref_residual(ref, x0.host, &gate.host, idx_host);
  const Matrix got = detail::fetch(x), base = detail::fetch(x_base);
  r.rel_err = test::rel_err(detail::gather(rows, {{&got, 0, n}}), ref);
  r.baseline_rel_err = test::rel_err(detail::gather(rows, {{&base, 0, n}}), ref);
  problems.accuracy(r, ref.v.size());

  // Timed in place, as the block runs them: the residual grows call after call (no overflow
  // in the few hundred calls timed), the work per call does not change.
  const PairTiming t = time_pair([&](cudaStream_t s) { fused_on(x, s); }, unfused, ctx.calls_per_replay, ctx.replays,
                                 ctx.stream);
  r.fusekit_ms = t.first_ms;
  r.baseline_ms = t.second_ms;
  return r;
}

// Step 8: silu(h W_gate^T) * (h W_value^T).
inline LayerResult measure_fc1(const LayerContext& ctx, const BlockWeights& w, std::int64_t block, std::int64_t m) {
  const gemm::H3Dims& d = ctx.dims;
  LayerResult r = detail::result_of(block, m, "fc1");
  detail::Problems problems(ctx, r);
  const std::uint64_t seed = detail::case_seed(ctx, block, m, 2);
  const DevTensor h = upload(test::random_matrix(DType::bf16, m, d.hidden, seed, 1.0));
  auto fused_into = [&](const DevTensor& out, const DevTensor& weight, gemm::GluOrder order, cudaStream_t s) {
    throw_if_failed(gemm::fc1_swiglu(h.view(), weight.view(), out.out(), order, s, d), "fc1_swiglu");
  };
  const DevTensor first = poisoned(DType::bf16, m, d.ffn), again = poisoned(DType::bf16, m, d.ffn),
                  swapped = poisoned(DType::bf16, m, d.ffn);
  fused_into(first, w.fc1, gemm::GluOrder::gate_value, ctx.stream);
  fused_into(again, w.fc1, gemm::GluOrder::gate_value, ctx.stream);
  fused_into(swapped, w.fc1_value_gate, gemm::GluOrder::value_gate, ctx.stream);

  const DevTensor y = poisoned(DType::bf16, m, 2 * std::int64_t(d.ffn)), base = poisoned(DType::bf16, m, d.ffn);
  const baseline::CublasLtGemm lt(DType::bf16, m, 2 * std::int64_t(d.ffn), d.hidden);
  auto unfused = [&](cudaStream_t s) {
    lt.run(h.dev.get(), w.fc1.dev.get(), y.dev.get(), s);
    unfused_swiglu(y.as<const bf16_t>(), base.as<bf16_t>(), m, d.ffn, s);
  };
  unfused(ctx.stream);
  detail::finish(ctx, "fc1 checks");

  problems.all_written(first, "out");
  problems.all_written(base, "baseline out");
  r.repeatable = detail::same_bytes(first, again);
  r.fc1_equals_diffusers_swapped = detail::same_bytes(first, swapped);

  const auto rows = test::sample_rows(m, seed);
  const Ref ref =
      test::ref_glu(test::ref_gemm(h.host, w.fc1.host, rows), gemm::Activation::silu, gemm::GluOrder::gate_value);
  const Matrix got = detail::fetch(first), got_base = detail::fetch(base);
  r.rel_err = test::rel_err(detail::gather(rows, {{&got, 0, d.ffn}}), ref);
  r.baseline_rel_err = test::rel_err(detail::gather(rows, {{&got_base, 0, d.ffn}}), ref);
  problems.accuracy(r, ref.v.size());

  const PairTiming t = time_pair([&](cudaStream_t s) { fused_into(first, w.fc1, gemm::GluOrder::gate_value, s); },
                                 unfused, ctx.calls_per_replay, ctx.replays, ctx.stream);
  r.fusekit_ms = t.first_ms;
  r.baseline_ms = t.second_ms;
  return r;
}

// The four linears of one block at one token count, in the seed's order.
inline std::vector<LayerResult> measure_block(const LayerContext& ctx, const BlockWeights& w, std::int64_t block,
                                              std::int64_t m) {
  return {measure_qkv(ctx, w, block, m), measure_residual(ctx, w.out, &gemm::out_proj, "out_proj", 1, block, m),
          measure_fc1(ctx, w, block, m), measure_residual(ctx, w.fc2, &gemm::fc2, "fc2", 3, block, m)};
}

}  // namespace fusekit::layer_report
