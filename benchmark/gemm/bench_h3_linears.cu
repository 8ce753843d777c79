// The four fused linears of a MiniMax-H3 block (suite "gemm", ops qkv_proj / out_proj / fc1 /
// fc2, bf16, tokens = 70, 925, 4096), by fusekit (the whole fused function), fusekit_bare (the
// same GEMM with the identity epilogue, `linear`) and cuBLASLt (the bare GEMM alone, best
// heuristic algorithm). out_proj and fc2 run out of place
// (linear_residual with the same gate epilogue): the in-place preset would grow x call after call.
#include "harness.hpp"

#include "device_array.hpp"
#include "device_timing.hpp"
#include "env_choice.hpp"

#include "cublaslt_gemm.hpp"
#include "fusekit/gemm.hpp"
#include "reference.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace fusekit;
using namespace fusekit::bench;
using fusekit::test::Matrix;
using fusekit::test::Ref;

// A device tensor with its exact host values.
struct Tensor {
  Matrix host;
  std::shared_ptr<DeviceArray> dev;
  ConstRows view() const { return {dev->p, host.dtype, host.rows, host.cols, 0}; }
  Rows out() const { return {dev->p, host.dtype, host.rows, host.cols, 0}; }
};

Tensor make_tensor(Matrix m) {
  Tensor t{std::move(m), nullptr};
  t.dev = std::make_shared<DeviceArray>(t.host.bytes());
  const auto bytes = test::to_bytes(t.host);
  FUSEKIT_BENCH_CUDA(cudaMemcpy(t.dev->p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  return t;
}
Tensor random_tensor(DType t, std::int64_t rows, std::int64_t cols, double stddev, double mean = 0) {
  return make_tensor(test::random_matrix(t, rows, cols, std::random_device{}(), stddev, mean));
}
Tensor empty_tensor(DType t, std::int64_t rows, std::int64_t cols) {
  Tensor x{Matrix{t, rows, cols, {}}, std::make_shared<DeviceArray>(rows * cols * dtype_size(t))};
  FUSEKIT_BENCH_CUDA(cudaMemset(x.dev->p, 0xFF, rows * cols * dtype_size(t)));
  return x;
}
// Another device copy of the same values (a rotating set).
Tensor device_copy(const Tensor& t) {
  Tensor c{Matrix{t.host.dtype, t.host.rows, t.host.cols, {}}, std::make_shared<DeviceArray>(t.host.bytes())};
  FUSEKIT_BENCH_CUDA(cudaMemcpy(c.dev->p, t.dev->p, t.host.bytes(), cudaMemcpyDeviceToDevice));
  return c;
}

struct Linear {
  const char* op;
  std::int64_t w_rows, k, out_cols;
};
const Linear kLinears[] = {
    {"qkv_proj", 3 * 7168, 5376, 3 * 7168}, {"out_proj", 5376, 7168, 5376}, {"fc1", 2 * 14336, 5376, 14336},
    {"fc2", 5376, 14336, 5376}};
const std::int64_t kTokens[] = {70, 925, 4096};

// Weights and activations are generated once per process and shared by both impls.
const Tensor& cached(const std::string& key, std::int64_t rows, std::int64_t cols, double stddev, double mean = 0) {
  static std::map<std::string, Tensor> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, random_tensor(DType::bf16, rows, cols, stddev, mean)).first;
  return it->second;
}

// Everything one call reads and writes, per rotating set (set 0 holds the host values).
struct Inputs {
  std::vector<Tensor> w, a, residual, out, q, k, v;
  Tensor gate, q_norm, k_norm, cos, sin;
  std::shared_ptr<DeviceArray> idx;
  std::vector<std::int32_t> idx_host;
  std::vector<std::int64_t> rows;  // rows the float64 reference checks
  std::shared_ptr<Ref> ref;        // computed on first validation
};

std::vector<double> fetch_rows(const Tensor& t, const std::vector<std::int64_t>& rows) {
  std::vector<double> out;
  visit_dtype(t.host.dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> row(t.host.cols);
    for (std::int64_t r : rows) {
      FUSEKIT_BENCH_CUDA(cudaMemcpy(row.data(), static_cast<const T*>(t.dev->p) + r * t.host.cols,
                                    row.size() * sizeof(T), cudaMemcpyDeviceToHost));
      for (const T& x : row) out.push_back(to_float(x));
    }
    return 0;
  });
  return out;
}

Validation compare(const Ref& got, const Ref& ref) {
  Validation v;
  v.rel_err = test::rel_err(got, ref);
  v.ok = v.rel_err < 1e-2;  // NaN fails too
  if (!v.ok) v.message = "rel_err " + std::to_string(v.rel_err) + " vs float64 >= 1e-2";
  return v;
}

enum class Impl { fused, bare, cublaslt };

Instance make_instance(const Linear& L, std::int64_t m, Impl impl, int sets) {
  const bool fused = impl == Impl::fused;
  auto in = std::make_shared<Inputs>();
  const std::string op = L.op;
  const Tensor& w0 = cached(op + "/w", L.w_rows, L.k, 1.0 / std::sqrt(double(L.k)));
  const Tensor& a0 = cached(op + "/a/" + std::to_string(m), m, L.k, 1.0);
  for (int s = 0; s < sets; ++s) {
    in->w.push_back(s == 0 ? w0 : device_copy(w0));
    in->a.push_back(s == 0 ? a0 : device_copy(a0));
  }
  in->rows = test::sample_rows(m, 7);
  const bool gated = op == "out_proj" || op == "fc2";
  if (fused && gated) {
    in->gate = random_tensor(DType::bf16, 6, L.out_cols, 0.3);
    std::mt19937 rng(1);
    for (std::int64_t r = 0; r < m; ++r) in->idx_host.push_back(static_cast<std::int32_t>(rng() % 6));
    in->idx = std::make_shared<DeviceArray>(m * sizeof(std::int32_t));
    FUSEKIT_BENCH_CUDA(cudaMemcpy(in->idx->p, in->idx_host.data(), m * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    const Tensor& r0 = cached(op + "/residual/" + std::to_string(m), m, L.out_cols, 2.0);
    for (int s = 0; s < sets; ++s) in->residual.push_back(s == 0 ? r0 : device_copy(r0));
  }
  if (fused && op == "qkv_proj") {
    in->q_norm = random_tensor(DType::bf16, 1, 128, 0.2, 1.0);
    in->k_norm = random_tensor(DType::bf16, 1, 128, 0.2, 1.0);
    auto [c, s] = test::rotary_matrices(m, 96);
    in->cos = make_tensor(std::move(c));
    in->sin = make_tensor(std::move(s));
    for (int s2 = 0; s2 < sets; ++s2) {
      in->q.push_back(empty_tensor(DType::bf16, m, 7168));
      in->k.push_back(empty_tensor(DType::bf16, m, 7168));
      in->v.push_back(empty_tensor(DType::bf16, m, 7168));
    }
  } else {
    const std::int64_t cols = fused ? L.out_cols : L.w_rows;  // cuBLASLt writes the whole GEMM
    for (int s = 0; s < sets; ++s) in->out.push_back(empty_tensor(DType::bf16, m, cols));
  }

  Instance inst;
  Inputs* p = in.get();
  if (impl == Impl::bare) {
    inst.launch = [p](cudaStream_t stream, int s) {
      const Status st = gemm::linear(p->a[s].view(), p->w[s].view(), p->out[s].out(), {}, stream);
      if (!st.ok()) throw std::runtime_error(st.to_string());
    };
    inst.keepalive = in;
  } else if (impl == Impl::cublaslt) {
    auto gemm = std::make_shared<baseline::CublasLtGemm>(DType::bf16, m, L.w_rows, L.k);
    inst.launch = [p, gemm](cudaStream_t stream, int s) { gemm->run(p->a[s].dev->p, p->w[s].dev->p, p->out[s].dev->p, stream); };
    inst.keepalive = std::make_shared<std::pair<std::shared_ptr<Inputs>, std::shared_ptr<baseline::CublasLtGemm>>>(in, gemm);
  } else {
    inst.launch = [p, op](cudaStream_t stream, int s) {
      const Status st = [&] {
        if (op == "qkv_proj")
          return gemm::qkv_proj(p->a[s].view(), p->w[s].view(), {p->q[s].out(), p->k[s].out(), p->v[s].out()},
                                {p->q_norm.dev->p, DType::bf16, 128}, {p->k_norm.dev->p, DType::bf16, 128},
                                p->cos.view(), p->sin.view(), stream);
        if (op == "fc1")
          return gemm::fc1_swiglu(p->a[s].view(), p->w[s].view(), p->out[s].out(), gemm::GluOrder::gate_value, stream);
        gemm::ResidualOptions opt;
        opt.gate = p->gate.view();
        opt.idx = static_cast<const std::int32_t*>(p->idx->p);
        return gemm::linear_residual(p->a[s].view(), p->w[s].view(), p->residual[s].view(), p->out[s].out(), opt,
                                     stream);
      }();
      if (!st.ok()) throw std::runtime_error(st.to_string());
    };
    inst.keepalive = in;
  }
  inst.validate = [p, op, fused] {
    if (!p->ref) {  // float64 reference of what this impl computes, on the sampled rows
      Ref y = test::ref_gemm(p->a[0].host, p->w[0].host, p->rows);
      if (fused && op == "qkv_proj")
        test::ref_qkv_epilogue(y, 7168, 128, 96, &p->q_norm.host, &p->k_norm.host, p->cos.host, p->sin.host, 1e-5);
      if (fused && op == "fc1") y = test::ref_glu(y, gemm::Activation::silu, gemm::GluOrder::gate_value);
      if (fused && (op == "out_proj" || op == "fc2")) test::ref_residual(y, p->residual[0].host, &p->gate.host, p->idx_host);
      p->ref = std::make_shared<Ref>(std::move(y));
    }
    Ref got{p->rows, p->ref->cols, {}};
    if (fused && op == "qkv_proj") {
      const auto q = fetch_rows(p->q[0], p->rows), k = fetch_rows(p->k[0], p->rows), v = fetch_rows(p->v[0], p->rows);
      for (std::size_t i = 0; i < p->rows.size(); ++i)
        for (const auto* part : {&q, &k, &v}) got.v.insert(got.v.end(), part->begin() + i * 7168, part->begin() + (i + 1) * 7168);
    } else {
      got.v = fetch_rows(p->out[0], p->rows);
    }
    return compare(got, *p->ref);
  };
  return inst;
}

// FUSEKIT_SEGMENT_TILES=narrow|wide|swapped|few_swapped|half_swapped|automatic forces the tiles of long, narrow weights
// (kernel.hpp's choose_segment_tiles; the bits are the same), to measure them against each other.
void apply_segment_tiles_override() {
  using gemm::SegmentTiles;
  apply_env_choice("FUSEKIT_SEGMENT_TILES", gemm::segment_tiles(),
                   {{"narrow", SegmentTiles::narrow}, {"wide", SegmentTiles::wide},
                    {"swapped", SegmentTiles::swapped}, {"few_swapped", SegmentTiles::few_swapped},
                    {"half_swapped", SegmentTiles::half_swapped}, {"automatic", SegmentTiles::automatic}});
}

// FUSEKIT_LIGHT_PAIRS=off runs a short last M-tile's tiles one to an item (kernel_sm90.hpp's
// light_tile_pairs; the bits are the same), to measure the pairs against that order.
void apply_light_pairs_override() {
  const char* pairs = std::getenv("FUSEKIT_LIGHT_PAIRS");
  if (pairs == nullptr) return;
  gemm::light_tile_pairs() = std::string(pairs) != "off";
  std::fprintf(stderr, "fusekit_bench_gemm: FUSEKIT_LIGHT_PAIRS=%s\n", pairs);
}

// FUSEKIT_SWAPPED_TILES=never|160|232|72|wide72|automatic overrides which tiles whole-tile calls take
// (the 128 x 256 ones, or swapped tiles of 160, 232 or 72 tokens, the last one or two N-tiles a CTA; kernel.hpp's swapped_tiles; the bits
// are the same), to time them against each other.
void apply_swapped_tiles_override() {
  using gemm::SwappedTiles;
  apply_env_choice("FUSEKIT_SWAPPED_TILES", gemm::swapped_tiles(),
                   {{"never", SwappedTiles::never}, {"160", SwappedTiles::rows160}, {"232", SwappedTiles::rows232},
                    {"72", SwappedTiles::rows72}, {"wide72", SwappedTiles::wide72},
                    {"automatic", SwappedTiles::automatic}});
}

// FUSEKIT_GRID_OVERLAP=none|prologue|weights sets how a launch overlaps the one before it
// (kernel_sm90.hpp's grid_overlap; the bits are the same), to measure the modes against each other.
void apply_grid_overlap_override() {
  using gemm::GridOverlap;
  apply_env_choice("FUSEKIT_GRID_OVERLAP", gemm::grid_overlap(),
                   {{"none", GridOverlap::none}, {"prologue", GridOverlap::prologue}, {"weights", GridOverlap::weights}});
}

// FUSEKIT_SPLIT_FOLD=automatic|last_arrival sets how the few-row kernel folds its split tiles
// (split_k.hpp's split_fold; the bits are the same), to measure the folds against each other.
void apply_split_fold_override() {
  using gemm::SplitFold;
  apply_env_choice("FUSEKIT_SPLIT_FOLD", gemm::split_fold(),
                   {{"automatic", SplitFold::automatic}, {"last_arrival", SplitFold::last_arrival}});
}

// FUSEKIT_GEMM_TOKENS=128,256,... replaces the token counts (70, 925, 4096), for sweeps over M.
std::vector<std::int64_t> token_counts() {
  const char* list = std::getenv("FUSEKIT_GEMM_TOKENS");
  if (list == nullptr) return {std::begin(kTokens), std::end(kTokens)};
  std::vector<std::int64_t> out;
  for (const char* p = list; *p != '\0';) {
    char* end = nullptr;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || v <= 0) throw std::runtime_error(std::string("FUSEKIT_GEMM_TOKENS: not a list of positive counts: ") + list);
    out.push_back(v);
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

// FUSEKIT_SPLIT_K=unsplit|whole|split forces how long, narrow weights cut K (split_k.hpp),
// to measure the choices against each other; unset, the library decides.
void apply_split_k_override() {
  const char* way = std::getenv("FUSEKIT_SPLIT_K");
  if (way == nullptr) return;
  const std::string w = way;
  gemm::split_k_way() = w == "unsplit"   ? gemm::SplitKWay::unsplit
                        : w == "whole"   ? gemm::SplitKWay::whole
                        : w == "split"   ? gemm::SplitKWay::split
                                         : gemm::SplitKWay::automatic;
  std::fprintf(stderr, "fusekit_bench_gemm: FUSEKIT_SPLIT_K=%s\n", way);
}

void register_h3_linears() {
  apply_split_k_override();
  apply_segment_tiles_override();
  apply_light_pairs_override();
  apply_grid_overlap_override();
  apply_swapped_tiles_override();
  apply_split_fold_override();
  for (const Linear& L : kLinears)
    for (std::int64_t m : token_counts())
      for (Impl impl : {Impl::fused, Impl::bare, Impl::cublaslt}) {
        const bool fused = impl == Impl::fused;
        CaseSpec spec;
        spec.suite = "gemm";
        spec.op = L.op;
        spec.dtype = "bf16";
        spec.shape = "tokens=" + std::to_string(m);
        spec.impl = fused ? "fusekit" : impl == Impl::bare ? "fusekit_bare" : "cublaslt";
        const double w_bytes = 2.0 * L.w_rows * L.k, a_bytes = 2.0 * m * L.k;
        double out_bytes = 2.0 * m * (fused ? L.out_cols : L.w_rows);
        if (fused && (std::string(L.op) == "out_proj" || std::string(L.op) == "fc2")) out_bytes *= 2;  // + residual read
        spec.bytes = w_bytes + a_bytes + out_bytes;
        spec.flops = 2.0 * m * L.w_rows * L.k;
        spec.modes = {Mode::gpu_throughput, Mode::gpu_latency};
        register_case(spec, [L, m, impl](int sets) { return make_instance(L, m, impl, sets); });
      }
}
FUSEKIT_BENCH_REGISTER(register_h3_linears);

}  // namespace
