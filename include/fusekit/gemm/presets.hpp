// fusekit/gemm/presets.hpp: the four fused linears of one MiniMax-H3 block
// (../shared/docs/minimax_h3.md, steps 2-4, 6, 8, 9), as thin named calls on linear.hpp.
// Each checks that the shapes are the block's (H3Dims), so a swapped weight fails loudly.
#pragma once

#include "fusekit/gemm/linear.hpp"

#include <cstdint>
#include <string>

namespace fusekit::gemm {

struct H3Dims {
  int hidden = 5376;
  int heads = 56;
  int head_dim = 128;
  int rotary_dim = 96;  // 0 for the token-refiner blocks
  int ffn = 14336;
  float eps = 1e-5f;

  // The fixtures' tiny configuration: same structure, small sizes.
  static constexpr H3Dims tiny() { return {64, 2, 32, 24, 128, 1e-5f}; }
};

namespace detail {
inline Status check_dims(const char* op, const char* name, const ConstRows& v, std::int64_t rows, std::int64_t cols) {
  if (v.rows != rows || v.cols != cols)
    return {Errc::bad_shape, std::string(op) + ": " + name + " is " + std::to_string(v.rows) + " x " +
                                 std::to_string(v.cols) + ", the block needs " + std::to_string(rows) + " x " +
                                 std::to_string(cols)};
  return {};
}
}  // namespace detail

// Steps 2-4: q, k, v = split(h W^T); q, k: per-head RMSNorm (q_norm, k_norm), rotary on the
// first rotary_dim channels (rotate-half, cos/sin f32 [M, rotary_dim]).
template <int = 0>  // as in linear.hpp: kernels compile where called
Status qkv_proj(const ConstRows& h, const ConstRows& w, const QkvOutputs& out, const ConstVec& q_norm,
                const ConstVec& k_norm, const ConstRows& cos, const ConstRows& sin, cudaStream_t stream = nullptr,
                const H3Dims& d = {}) {
  FUSEKIT_TRY(detail::check_dims("qkv_proj", "w", w, 3 * std::int64_t(d.heads) * d.head_dim, d.hidden));
  if (!q_norm.present() || !k_norm.present()) return {Errc::null_pointer, "qkv_proj: q_norm and k_norm are required"};
  QkvOptions opt;
  opt.heads = d.heads;
  opt.head_dim = d.head_dim;
  opt.q_norm = q_norm;
  opt.k_norm = k_norm;
  opt.eps = d.eps;
  opt.rotary_dim = d.rotary_dim;
  opt.cos = cos;
  opt.sin = sin;
  return linear_qkv(h, w, out, opt, stream);
}

// Step 6, in place on the residual stream: x = x + gate_msa[idx[row]] * (attn W^T).
template <int = 0>  // as in linear.hpp: kernels compile where called
Status out_proj(const ConstRows& attn, const ConstRows& w, const Rows& x, const ConstRows& gate_msa,
                const std::int32_t* idx, cudaStream_t stream = nullptr, const H3Dims& d = {}) {
  FUSEKIT_TRY(detail::check_dims("out_proj", "w", w, d.hidden, std::int64_t(d.heads) * d.head_dim));
  if (gate_msa.data == nullptr) return {Errc::null_pointer, "out_proj: gate_msa is required"};
  ResidualOptions opt;
  opt.gate = gate_msa;
  opt.idx = idx;
  return linear_residual(attn, w, as_const(x), x, opt, stream);
}

// Step 8: out [M, ffn] = silu(h W_gate^T) * (h W_value^T). W native [gate; value]; pass
// GluOrder::value_gate for the diffusers checkpoint's [value; gate].
template <int = 0>  // as in linear.hpp: kernels compile where called
Status fc1_swiglu(const ConstRows& h, const ConstRows& w, const Rows& out,
                  GluOrder order = GluOrder::gate_value, cudaStream_t stream = nullptr, const H3Dims& d = {}) {
  FUSEKIT_TRY(detail::check_dims("fc1_swiglu", "w", w, 2 * std::int64_t(d.ffn), d.hidden));
  GluOptions opt;
  opt.act = Activation::silu;
  opt.order = order;
  return linear_glu(h, w, out, opt, stream);
}

// Step 9, in place on the residual stream: x = x + gate_mlp[idx[row]] * (a W^T).
template <int = 0>  // as in linear.hpp: kernels compile where called
Status fc2(const ConstRows& a, const ConstRows& w, const Rows& x, const ConstRows& gate_mlp,
           const std::int32_t* idx, cudaStream_t stream = nullptr, const H3Dims& d = {}) {
  FUSEKIT_TRY(detail::check_dims("fc2", "w", w, d.hidden, d.ffn));
  if (gate_mlp.data == nullptr) return {Errc::null_pointer, "fc2: gate_mlp is required"};
  ResidualOptions opt;
  opt.gate = gate_mlp;
  opt.idx = idx;
  return linear_residual(a, w, as_const(x), x, opt, stream);
}

}  // namespace fusekit::gemm
