// fusekit/reduce/options.hpp: the user-facing options of the row ops, and their validation into
// RowParams. Host-only: every check runs before any device work, so a rejected call writes nothing.
#pragma once

#include "fusekit/core/views.hpp"
#include "fusekit/reduce/row_params.hpp"
#include "fusekit/reduce/tile_traits.hpp"

#include <climits>
#include <cmath>
#include <string>

namespace fusekit {

// adaLN modulation applied after the norm: y = y * (1 + scale[t][col]) + shift[t][col], t = index[row].
// scale and shift are rows of one table (MiniMax-H3: shift_msa and scale_msa of the modulation table)
// with `stride` elements between table rows. Rows whose index is outside [0, table_rows) are written
// as NaN: the index lives on the device, where the host cannot check it without a synchronization.
struct Modulation {
  const void* scale = nullptr;
  const void* shift = nullptr;
  DType dtype = DType::f32;
  std::int64_t table_rows = 0;
  std::int64_t stride = 0;
  const std::int32_t* index = nullptr;  // one entry per input row, device memory
  bool present() const { return index != nullptr || scale != nullptr || shift != nullptr; }
};

struct NormOptions {
  ConstVec weight;             // [cols], any dtype; absent = 1
  float weight_offset = 0.f;   // y *= weight + weight_offset (1.0 for "1 + w" checkpoints)
  ConstVec bias;               // [cols], layer_norm only
  float eps = 1e-5f;
  ConstRows residual;          // x = in + residual (rounded to in's dtype), same shape and dtype as in
  Rows residual_out;           // receives x; may be the residual buffer itself (in place)
  Modulation modulation;
  float* stats = nullptr;      // per row: layer_norm {mean, rstd}, rms_norm {rstd}, fp32, device memory
};

struct SoftmaxOptions {
  float* stats = nullptr;      // per row: {max, sum of exp(x - max)}, fp32, device memory
};

namespace reduce {

// Whether every row of a [rows x cols] buffer with `stride` elements between rows starts on a
// `bytes` boundary (absent buffers count as aligned).
inline bool rows_start_aligned(const void* data, std::int64_t stride, DType t, int bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % bytes == 0 && stride * std::int64_t(dtype_size(t)) % bytes == 0;
}

// RowParams::params_aligned for validated parameters.
inline bool params_vectors_aligned(const RowParams& p, DType in) {
  auto param = [in](const void* data, DType t) {
    return data == nullptr || (t == in && reinterpret_cast<std::uintptr_t>(data) % 16 == 0);
  };
  return param(p.weight, p.weight_dtype) && param(p.bias, p.bias_dtype) &&
         (p.mod_index == nullptr ||
          (p.mod_dtype == in && rows_start_aligned(p.mod_scale, p.mod_stride, in, 16) &&
           rows_start_aligned(p.mod_shift, p.mod_stride, in, 16)));
}

// The rows' half of RowParams::vectors_aligned (the other is params_aligned): N a whole number of
// vectors, every row start and row stride vector-aligned.
inline bool rows_vectors_aligned(const RowParams& p, DType in, DType out) {
  const int vec = elements_per_vector(in);
  const int out_bytes = vec * int(dtype_size(out)) < 16 ? vec * int(dtype_size(out)) : 16;
  return p.cols % vec == 0 && rows_start_aligned(p.in, p.in_stride, in, 16) &&
         rows_start_aligned(p.out, p.out_stride, out, out_bytes) &&
         rows_start_aligned(p.residual, p.residual_stride, in, 16) &&
         rows_start_aligned(p.residual_out, p.residual_out_stride, in, 16);
}

inline Status check_apart(const char* op, const char* write_name, const ConstRows& write, const char* read_name,
                          const ConstRows& read) {
  if (!detail::overlap(write, read)) return {};
  return {Errc::aliasing, std::string(op) + ": " + write_name + " overlaps " + read_name};
}

// What the row ops write (out, residual_out, stats) must not overlap what every row reads (the
// weight, bias and modulation tables, the index) or, for stats, any row's input or output: one
// row's write would change another row's read, and results would depend on scheduling.
inline Status check_outputs_apart(const char* op, int stats_per_row, const ConstRows& in, const Rows& out,
                                  const NormOptions& o) {
  if (in.empty()) return {};
  const Modulation& m = o.modulation;
  ConstRows scale, shift, index;  // empty unless modulated
  if (m.present()) {
    scale = {m.scale, m.dtype, m.table_rows, in.cols, m.stride};
    shift = {m.shift, m.dtype, m.table_rows, in.cols, m.stride};
    index = {m.index, DType::f32, 1, in.rows, 0};  // int32: 4 bytes an entry, as f32
  }
  ConstRows stats;
  if (o.stats) stats = {o.stats, DType::f32, 1, in.rows * stats_per_row, 0};
  const ConstRows writes[3] = {as_const(out), as_const(o.residual_out), stats};
  const char* const write_names[3] = {"out", "residual_out", "stats"};
  for (int w = 0; w < 3; ++w) {
    FUSEKIT_TRY(check_apart(op, write_names[w], writes[w], "weight", detail::vec_rows(o.weight)));
    FUSEKIT_TRY(check_apart(op, write_names[w], writes[w], "bias", detail::vec_rows(o.bias)));
    FUSEKIT_TRY(check_apart(op, write_names[w], writes[w], "modulation.scale", scale));
    FUSEKIT_TRY(check_apart(op, write_names[w], writes[w], "modulation.shift", shift));
    FUSEKIT_TRY(check_apart(op, write_names[w], writes[w], "modulation.index", index));
  }
  FUSEKIT_TRY(check_apart(op, "stats", stats, "in", in));
  FUSEKIT_TRY(check_apart(op, "stats", stats, "residual", o.residual));
  FUSEKIT_TRY(check_apart(op, "stats", stats, "out", as_const(out)));
  return check_apart(op, "stats", stats, "residual_out", as_const(o.residual_out));
}

// The checks shared by every row op. `Policy` says which options it accepts.
template <class Policy>
Status validate(const ConstRows& in, const Rows& out, const NormOptions& o, RowParams& p) {
  const char* op = Policy::kName;
  auto fail = [op](Errc e, const std::string& what) { return Status{e, std::string(op) + ": " + what}; };
  FUSEKIT_TRY(detail::check_rows(op, "in", in));
  FUSEKIT_TRY(detail::check_rows(op, "out", out));
  if (in.rows != out.rows || in.cols != out.cols)
    return fail(Errc::bad_shape, "out is " + detail::str(out.rows) + " x " + detail::str(out.cols) + ", in is " +
                                     detail::str(in.rows) + " x " + detail::str(in.cols));
  if (in.cols > max_cols(in.dtype))
    return fail(Errc::too_large, "rows of " + detail::str(in.cols) + " elements exceed the maximum of " +
                                     detail::str(max_cols(in.dtype)) + " for " + dtype_name(in.dtype));
  if (in.rows > INT_MAX / kMaxCluster)
    return fail(Errc::too_large, detail::str(in.rows) + " rows exceed the maximum of " +
                                     detail::str(INT_MAX / kMaxCluster));
  FUSEKIT_TRY(detail::check_alias(op, "in", in, "out", out));

  if (Policy::kNeedsEps && !(o.eps > 0.f && std::isfinite(o.eps)))
    return fail(Errc::bad_argument, "eps must be positive and finite, got " + std::to_string(o.eps));
  if (!Policy::kTakesWeight && (o.weight.present() || o.modulation.present()))
    return fail(Errc::bad_argument, "takes no weight or modulation");
  if (!Policy::kTakesBias && o.bias.present()) return fail(Errc::bad_argument, "takes no bias");
  if (!std::isfinite(o.weight_offset)) return fail(Errc::bad_argument, "weight_offset must be finite");
  if (o.weight_offset != 0.f && !o.weight.present())
    return fail(Errc::bad_argument, "weight_offset without a weight (it offsets the weight)");
  FUSEKIT_TRY(detail::check_vec(op, "weight", o.weight, in.cols));
  FUSEKIT_TRY(detail::check_vec(op, "bias", o.bias, in.cols));

  const bool has_residual = o.residual.data != nullptr || o.residual.rows != 0;
  if (has_residual) {
    FUSEKIT_TRY(detail::check_rows(op, "residual", o.residual));
    if (o.residual.rows != in.rows || o.residual.cols != in.cols || o.residual.dtype != in.dtype)
      return fail(Errc::bad_shape, "residual must have in's shape and dtype");
    FUSEKIT_TRY(detail::check_alias(op, "residual", o.residual, "out", out));
  }
  const bool has_residual_out = o.residual_out.data != nullptr || o.residual_out.rows != 0;
  if (has_residual_out) {
    if (!has_residual) return fail(Errc::bad_argument, "residual_out given without residual");
    FUSEKIT_TRY(detail::check_rows(op, "residual_out", o.residual_out));
    if (o.residual_out.rows != in.rows || o.residual_out.cols != in.cols || o.residual_out.dtype != in.dtype)
      return fail(Errc::bad_shape, "residual_out must have in's shape and dtype");
    FUSEKIT_TRY(detail::check_alias(op, "residual_out", as_const(o.residual_out), "in", in));
    FUSEKIT_TRY(detail::check_alias(op, "residual_out", as_const(o.residual_out), "residual", o.residual));
    FUSEKIT_TRY(detail::check_alias(op, "residual_out", as_const(o.residual_out), "out", as_const(out)));
    if (o.residual_out.data == out.data && !in.empty())
      return fail(Errc::aliasing, "residual_out and out are the same buffer");
  }

  const Modulation& m = o.modulation;
  if (m.present() && !in.empty()) {
    if (!m.scale || !m.shift || !m.index) return fail(Errc::null_pointer, "modulation needs scale, shift and index");
    if (m.table_rows < 1 || m.table_rows > INT_MAX) return fail(Errc::bad_shape, "modulation.table_rows out of range");
    if (m.stride < in.cols) return fail(Errc::bad_shape, "modulation.stride < cols");
    if (!dtype_valid(m.dtype)) return fail(Errc::unsupported_dtype, "modulation.dtype is not a valid dtype");
    const auto size = dtype_size(m.dtype);
    if (reinterpret_cast<std::uintptr_t>(m.scale) % size || reinterpret_cast<std::uintptr_t>(m.shift) % size ||
        reinterpret_cast<std::uintptr_t>(m.index) % alignof(std::int32_t))
      return fail(Errc::misaligned, "modulation tables or index not aligned to their element size");
  }
  if (o.stats && reinterpret_cast<std::uintptr_t>(o.stats) % alignof(float))
    return fail(Errc::misaligned, "stats is not aligned to 4 bytes");
  FUSEKIT_TRY(check_outputs_apart(op, Policy::kStats, in, out, o));

  p = RowParams{};
  p.in = in.data;
  p.in_stride = in.row_stride();
  p.out = out.data;
  p.out_stride = out.row_stride();
  if (has_residual) {
    p.residual = o.residual.data;
    p.residual_stride = o.residual.row_stride();
  }
  if (has_residual_out) {
    p.residual_out = o.residual_out.data;
    p.residual_out_stride = o.residual_out.row_stride();
  }
  p.weight = o.weight.data;
  p.weight_dtype = o.weight.dtype;
  p.weight_offset = o.weight_offset;
  p.bias = o.bias.data;
  p.bias_dtype = o.bias.dtype;
  if (m.present()) {
    p.mod_scale = m.scale;
    p.mod_shift = m.shift;
    p.mod_dtype = m.dtype;
    p.mod_stride = m.stride;
    p.mod_index = m.index;
    p.mod_rows = static_cast<std::int32_t>(m.table_rows);
  }
  p.stats = o.stats;
  p.rows = in.empty() ? 0 : in.rows;
  p.cols = static_cast<std::int32_t>(in.cols);
  p.inv_cols = 1.f / static_cast<float>(in.cols > 0 ? in.cols : 1);
  p.eps = o.eps;
  p.params_aligned = params_vectors_aligned(p, in.dtype);
  p.vectors_aligned = p.params_aligned && rows_vectors_aligned(p, in.dtype, out.dtype);
  return {};
}

}  // namespace reduce
}  // namespace fusekit
