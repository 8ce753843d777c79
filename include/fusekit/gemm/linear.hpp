// fusekit/gemm/linear.hpp: the runtime entry points, one per building block. Each validates
// every argument (validate.hpp), then launches Y = A * W^T with its epilogue. A is [M, K],
// W is [N, K] (nn.Linear layout), bf16 or f16; outputs are in A's dtype or f32; fp32 accumulation.
// M = 0 is a no-op. Any failed check returns a Status and writes nothing.
//
// Each entry point is a template (one defaulted parameter, never named by callers) only so that
// a translation unit compiles the kernels of the entry points it calls: an inline function
// instantiates every kernel its body names wherever its header is included. Calls look the same;
// to pass an entry point as a function, name it with empty brackets: `fusekit::gemm::linear<>`.
// Programs that call them from many files can compile their kernels once instead: instances.hpp.
#pragma once

#include "fusekit/core/status.hpp"
#include "fusekit/core/views.hpp"
#include "fusekit/gemm/epilogue/activation.hpp"
#include "fusekit/gemm/epilogue/bias.hpp"
#include "fusekit/gemm/epilogue/epilogue.hpp"
#include "fusekit/gemm/epilogue/glu.hpp"
#include "fusekit/gemm/epilogue/qkv_heads.hpp"
#include "fusekit/gemm/epilogue/residual.hpp"
#include "fusekit/gemm/epilogue/store.hpp"
#include "fusekit/gemm/kernel.hpp"
#include "fusekit/gemm/validate.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

namespace fusekit::gemm {

struct LinearOptions {
  ConstVec bias;  // [N], A's dtype; absent: no bias
  Activation act = Activation::identity;
};

struct GluOptions {
  Activation act = Activation::silu;
  GluOrder order = GluOrder::gate_value;
  ConstVec bias;  // [N] over W's rows (both halves), A's dtype
};

// out = residual + gate[idx[row]] * act(A W^T + bias); without a gate table, out = residual + ....
struct ResidualOptions {
  ConstVec bias;
  Activation act = Activation::identity;
  ConstRows gate;                     // [T, N] in A's dtype (a slice of the adaLN table); absent: plain add
  const std::int32_t* idx = nullptr;  // [M] rows of `gate`; values must lie in [0, T) (else the row is NaN)
};

// Fused QKV projection. W = [Wq; Wk; Wv], each heads * head_dim rows.
struct QkvOptions {
  int heads = 0;
  int head_dim = 128;  // a multiple of 8 that divides 128 (whole heads per CTA tile)
  ConstVec q_norm, k_norm;  // [head_dim] RMSNorm weights in A's dtype; absent: no norm
  float eps = 1e-5f;
  int rotary_dim = 0;  // even, <= head_dim; 0: no rotary
  ConstRows cos, sin;  // f32 [M, rotary_dim]
};

// q, k, v: [M, heads * head_dim] each, token-major (row = token, heads side by side), so an
// attention kernel reads them as [tokens, heads, head_dim] with no transpose (FlashAttention's
// varlen layout) and each CTA writes whole 256-byte head rows. Separate buffers; any row stride
// that keeps every row 16-byte aligned.
struct QkvOutputs {
  Rows q, k, v;
};

// The epilogue each entry point runs, by input and output type (instances.hpp names them too).
template <class T, class OutT> using LinearEpilogue = Epilogue<Bias<T>, Activate, StoreRows<OutT>>;
template <class T, class OutT> using GluEpilogue = Epilogue<Bias<T>, Glu, StoreRows<OutT>>;
template <class T, class OutT>
using ResidualEpilogue = Epilogue<Bias<T>, Activate, AddResidual<OutT, T>, StoreRows<OutT>>;
template <class T, class OutT> using QkvEpilogue = Epilogue<QkvHeads<T, OutT>>;

namespace detail {

template <class T> GemmOperands<T> operands(const ConstRows& a, const ConstRows& w) {
  return {static_cast<const T*>(a.data), static_cast<const T*>(w.data), a.rows, w.rows, w.cols,
          a.row_stride(), w.row_stride()};
}

template <class T> const T* ptr(const ConstVec& v) { return static_cast<const T*>(v.data); }
template <class T> const T* ptr(const ConstRows& v) { return static_cast<const T*>(v.data); }
template <class T> T* ptr(const Rows& v) { return static_cast<T*>(v.data); }

inline ConstRows idx_span(const std::int32_t* idx, std::int64_t m) { return {idx, DType::f32, 1, m, 0}; }

// An output of the GEMM: shape, dtype, alignment, and disjoint from both operands.
inline Status check_result(const char* op, const char* name, const Rows& out, std::int64_t cols, const ConstRows& a,
                           const ConstRows& w) {
  FUSEKIT_TRY(check_output(op, name, out, a.rows, cols, a.dtype));
  FUSEKIT_TRY(check_disjoint(op, name, out, "a", a));
  return check_disjoint(op, name, out, "w", w);
}

// An output disjoint from a vector every CTA reads (bias, norm weight): an overlap is a race.
inline Status check_disjoint_vec(const char* op, const char* out_name, const Rows& out, const char* name,
                                 const ConstVec& v) {
  return check_disjoint(op, out_name, out, name, fusekit::detail::vec_rows(v));
}

template <class T> struct Launcher {
  GemmOperands<T> op;
  DeviceInfo device;
  cudaStream_t stream;
  template <class Epi> Status run(const typename Epi::Params& p) const {
    return launch_gemm<T, Epi>(op, p, device, stream);
  }
};

// Where every entry point ends once its arguments are checked: M = 0 is a no-op, then the
// device check, then f(Launcher<T>, OutT{}) for the runtime dtypes.
template <class F>
Status dispatch(const char* op, const ConstRows& a, const ConstRows& w, DType out_dtype, cudaStream_t stream, F&& f) {
  if (a.rows == 0) return {};
  DeviceInfo device;
  FUSEKIT_TRY(query_device(op, device));
  return visit_types(a.dtype, out_dtype, [&](auto in, auto res) {
    using T = decltype(in);
    return f(Launcher<T>{operands<T>(a, w), device, stream}, res);
  });
}

}  // namespace detail

// out [M, N] = act(A W^T + bias).
template <int = 0>  // see the note at the top
Status linear(const ConstRows& a, const ConstRows& w, const Rows& out, const LinearOptions& opt = {},
              cudaStream_t stream = nullptr) {
  constexpr const char* op = "linear";
  FUSEKIT_TRY(detail::check_operands(op, a, w));
  FUSEKIT_TRY(detail::check_result(op, "out", out, w.rows, a, w));
  FUSEKIT_TRY(detail::check_optional_vec(op, "bias", opt.bias, w.rows, a.dtype));
  FUSEKIT_TRY(detail::check_disjoint_vec(op, "out", out, "bias", opt.bias));
  return detail::dispatch(op, a, w, out.dtype, stream, [&]<class T, class OutT>(const detail::Launcher<T>& gemm, OutT) {
    using Epi = LinearEpilogue<T, OutT>;
    return gemm.template run<Epi>(
        typename Epi::Params({detail::ptr<T>(opt.bias)}, {opt.act}, {detail::ptr<OutT>(out), out.row_stride()}));
  });
}

// out [M, N / 2] = act(gate) * value, gate and value the row halves of W (see GluOrder).
template <int = 0>  // see the note at the top
Status linear_glu(const ConstRows& a, const ConstRows& w, const Rows& out, const GluOptions& opt = {},
                  cudaStream_t stream = nullptr) {
  constexpr const char* op = "linear_glu";
  FUSEKIT_TRY(detail::check_operands(op, a, w));
  if (w.rows % 16 != 0)
    return {Errc::bad_shape, "linear_glu: w.rows (" + std::to_string(w.rows) + ") must be a multiple of 16 (2 x N/2)"};
  FUSEKIT_TRY(detail::check_result(op, "out", out, w.rows / 2, a, w));
  FUSEKIT_TRY(detail::check_optional_vec(op, "bias", opt.bias, w.rows, a.dtype));
  FUSEKIT_TRY(detail::check_disjoint_vec(op, "out", out, "bias", opt.bias));
  return detail::dispatch(op, a, w, out.dtype, stream, [&]<class T, class OutT>(const detail::Launcher<T>& gemm, OutT) {
    using Epi = GluEpilogue<T, OutT>;
    return gemm.template run<Epi>(typename Epi::Params({detail::ptr<T>(opt.bias)}, {opt.act, opt.order},
                                                       {detail::ptr<OutT>(out), out.row_stride()}));
  });
}

// out [M, N] = residual + gate[idx[row]] * act(A W^T + bias). residual has out's dtype and may be
// out itself (in place); it must not otherwise overlap out.
template <int = 0>  // see the note at the top
Status linear_residual(const ConstRows& a, const ConstRows& w, const ConstRows& residual, const Rows& out,
                       const ResidualOptions& opt = {}, cudaStream_t stream = nullptr) {
  constexpr const char* op = "linear_residual";
  FUSEKIT_TRY(detail::check_operands(op, a, w));
  FUSEKIT_TRY(detail::check_result(op, "out", out, w.rows, a, w));
  FUSEKIT_TRY(detail::check_input(op, "residual", residual, a.rows, w.rows, out.dtype));
  FUSEKIT_TRY(detail::check_optional_vec(op, "bias", opt.bias, w.rows, a.dtype));
  FUSEKIT_TRY(detail::check_disjoint_vec(op, "out", out, "bias", opt.bias));
  const bool gated = opt.gate.data != nullptr;
  if (!gated && !opt.gate.empty())
    return {Errc::null_pointer, "linear_residual: gate is null with " + std::to_string(opt.gate.rows) + " x " +
                                    std::to_string(opt.gate.cols) + " elements"};
  if (gated) {
    FUSEKIT_TRY(detail::check_input(op, "gate", opt.gate, opt.gate.rows, w.rows, a.dtype));
    if (opt.gate.rows <= 0) return {Errc::bad_shape, "linear_residual: gate table has no rows"};
    if (a.rows > 0 && opt.idx == nullptr) return {Errc::null_pointer, "linear_residual: idx is null with a gate table"};
    if (reinterpret_cast<std::uintptr_t>(opt.idx) % alignof(std::int32_t) != 0)
      return {Errc::misaligned, "linear_residual: idx is not 4-byte aligned"};
    FUSEKIT_TRY(detail::check_disjoint(op, "out", out, "gate", opt.gate));
    FUSEKIT_TRY(detail::check_disjoint(op, "out", out, "idx", detail::idx_span(opt.idx, a.rows)));
  }
  FUSEKIT_TRY(fusekit::detail::check_alias(op, "out", out, "residual", residual));
  return detail::dispatch(op, a, w, out.dtype, stream, [&]<class T, class OutT>(const detail::Launcher<T>& gemm, OutT) {
    using Epi = ResidualEpilogue<T, OutT>;
    const typename AddResidual<OutT, T>::Params add{detail::ptr<OutT>(residual), residual.row_stride(),
                                                    gated ? detail::ptr<T>(opt.gate) : nullptr, opt.gate.row_stride(),
                                                    opt.idx, opt.gate.rows};
    return gemm.template run<Epi>(typename Epi::Params({detail::ptr<T>(opt.bias)}, {opt.act}, add,
                                                       {detail::ptr<OutT>(out), out.row_stride()}));
  });
}

// q, k, v = split(A W^T); q and k: per-head RMSNorm, then rotary on the first rotary_dim
// channels of each head; v passes through.
template <int = 0>  // see the note at the top
Status linear_qkv(const ConstRows& a, const ConstRows& w, const QkvOutputs& out, const QkvOptions& opt,
                  cudaStream_t stream = nullptr) {
  constexpr const char* op = "linear_qkv";
  FUSEKIT_TRY(detail::check_operands(op, a, w));
  const int hd = opt.head_dim;
  if (opt.heads <= 0 || hd < 8 || hd % 8 != 0 || kTileN % hd != 0)
    return {Errc::bad_argument, "linear_qkv: heads (" + std::to_string(opt.heads) + ") must be positive and head_dim (" +
                                    std::to_string(hd) + ") one of 8, 16, 32, 64, 128"};
  const std::int64_t part = std::int64_t(opt.heads) * hd;
  if (w.rows != 3 * part)
    return {Errc::bad_shape, "linear_qkv: w.rows (" + std::to_string(w.rows) + ") != 3 * heads * head_dim (" +
                                 std::to_string(3 * part) + ")"};
  const Rows* outs[3] = {&out.q, &out.k, &out.v};
  const char* names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) FUSEKIT_TRY(detail::check_result(op, names[i], *outs[i], part, a, w));
  if (out.k.dtype != out.q.dtype || out.v.dtype != out.q.dtype)
    return {Errc::unsupported_dtype, "linear_qkv: q, k and v must share one dtype"};
  FUSEKIT_TRY(detail::check_optional_vec(op, "q_norm", opt.q_norm, hd, a.dtype));
  FUSEKIT_TRY(detail::check_optional_vec(op, "k_norm", opt.k_norm, hd, a.dtype));
  if (!(opt.eps > 0.f) || !std::isfinite(opt.eps))
    return {Errc::bad_argument, "linear_qkv: eps must be positive and finite"};
  if (opt.rotary_dim < 0 || opt.rotary_dim > hd || opt.rotary_dim % 2 != 0)
    return {Errc::bad_argument, "linear_qkv: rotary_dim (" + std::to_string(opt.rotary_dim) +
                                    ") must be even and within [0, head_dim]"};
  if (opt.rotary_dim > 0) {
    FUSEKIT_TRY(detail::check_input(op, "cos", opt.cos, a.rows, opt.rotary_dim, DType::f32));
    FUSEKIT_TRY(detail::check_input(op, "sin", opt.sin, a.rows, opt.rotary_dim, DType::f32));
  }
  for (int i = 0; i < 3; ++i) {  // outputs disjoint from each other and from every table the grid reads
    FUSEKIT_TRY(detail::check_disjoint(op, names[i], *outs[i], names[(i + 1) % 3], *outs[(i + 1) % 3]));
    FUSEKIT_TRY(detail::check_disjoint_vec(op, names[i], *outs[i], "q_norm", opt.q_norm));
    FUSEKIT_TRY(detail::check_disjoint_vec(op, names[i], *outs[i], "k_norm", opt.k_norm));
    if (opt.rotary_dim > 0) {
      FUSEKIT_TRY(detail::check_disjoint(op, names[i], *outs[i], "cos", opt.cos));
      FUSEKIT_TRY(detail::check_disjoint(op, names[i], *outs[i], "sin", opt.sin));
    }
  }
  return detail::dispatch(op, a, w, out.q.dtype, stream, [&]<class T, class OutT>(const detail::Launcher<T>& gemm, OutT) {
    using Heads = QkvHeads<T, OutT>;
    typename Heads::Params heads;
    const ConstVec* norms[3] = {&opt.q_norm, &opt.k_norm, nullptr};
    for (int i = 0; i < 3; ++i)
      heads.parts[i] = {detail::ptr<OutT>(*outs[i]), outs[i]->row_stride(), norms[i] ? detail::ptr<T>(*norms[i]) : nullptr,
                        i < 2};
    heads.part_cols = part;
    heads.head_dim = hd;
    heads.eps = opt.eps;
    if (opt.rotary_dim > 0) {
      heads.cos = detail::ptr<float>(opt.cos), heads.sin = detail::ptr<float>(opt.sin);
      heads.ld_cos = opt.cos.row_stride(), heads.ld_sin = opt.sin.row_stride();
      heads.rot_dim = opt.rotary_dim;
    }
    return gemm.template run<QkvEpilogue<T, OutT>>(typename QkvEpilogue<T, OutT>::Params(heads));
  });
}

}  // namespace fusekit::gemm

// Linked with fusekit_add_gemm_instances' library (cmake/FusekitInstances.cmake): the kernels of
// the entry points above are compiled there, once, not in every file that calls them.
#ifdef FUSEKIT_GEMM_EXTERN_INSTANCES
#include "fusekit/gemm/instances.hpp"
#endif
