// fusekit/gemm/validate.hpp: the argument checks every GEMM entry point shares. All of them run
// before any device work, so a failed check writes nothing.
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/status.hpp"
#include "fusekit/core/views.hpp"
#include "fusekit/gemm/kernel.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace fusekit::gemm::detail {

using fusekit::detail::str;

inline std::string where(const char* op, const char* name) { return std::string(op) + ": " + name; }

// Rows whose start addresses are all 16-byte aligned (what cp.async and vector stores need).
template <class Ptr> Status check_aligned16(const char* op, const char* name, const BasicRows<Ptr>& v) {
  if (v.empty()) return {};
  const auto addr = reinterpret_cast<std::uintptr_t>(v.data);
  const auto stride_bytes = static_cast<std::uint64_t>(v.row_stride()) * dtype_size(v.dtype);
  if (addr % 16 != 0)
    return {Errc::misaligned, where(op, name) + " is not 16-byte aligned"};
  if (v.rows > 1 && stride_bytes % 16 != 0)
    return {Errc::misaligned, where(op, name) + " rows are not 16-byte aligned (stride " + str(v.row_stride()) +
                                  " elements)"};
  return {};
}

// A [M, K] and W [N, K]: same 16-bit dtype, K and N positive multiples of 8, 16-byte aligned rows.
inline Status check_operands(const char* op, const ConstRows& a, const ConstRows& w) {
  if (a.dtype != DType::bf16 && a.dtype != DType::f16)
    return {Errc::unsupported_dtype, where(op, "a") + " is " + dtype_name(a.dtype) + "; bf16 or f16 expected"};
  if (w.dtype != a.dtype)
    return {Errc::unsupported_dtype, where(op, "w") + " is " + dtype_name(w.dtype) + ", a is " + dtype_name(a.dtype)};
  FUSEKIT_TRY(fusekit::detail::check_rows(op, "a", a));
  FUSEKIT_TRY(fusekit::detail::check_rows(op, "w", w));
  if (a.cols != w.cols)
    return {Errc::bad_shape, where(op, "a.cols (") + str(a.cols) + ") != w.cols (" + str(w.cols) + ")"};
  if (w.cols <= 0 || w.cols % 8 != 0)
    return {Errc::bad_shape, where(op, "K (") + str(w.cols) + ") must be a positive multiple of 8"};
  if (w.rows <= 0 || w.rows % 8 != 0)
    return {Errc::bad_shape, where(op, "N = w.rows (") + str(w.rows) + ") must be a positive multiple of 8"};
  if ((w.rows + kTileN - 1) / kTileN > kMaxNTiles)
    return {Errc::too_large, where(op, "N = w.rows (") + str(w.rows) + ") exceeds " + str(kMaxNTiles * kTileN)};
  if (a.rows > kMaxRows) return {Errc::too_large, where(op, "M (") + str(a.rows) + ") exceeds " + str(kMaxRows)};
  if (w.cols > kMaxK) return {Errc::too_large, where(op, "K (") + str(w.cols) + ") exceeds " + str(kMaxK)};
  FUSEKIT_TRY(check_aligned16(op, "a", a));
  FUSEKIT_TRY(check_aligned16(op, "w", w));
  return {};
}

// An output [rows, cols] in the input dtype or f32, 16-byte aligned rows (vector stores).
template <class Ptr>
Status check_output(const char* op, const char* name, const BasicRows<Ptr>& out, std::int64_t rows,
                    std::int64_t cols, DType in_dtype) {
  if (out.dtype != in_dtype && out.dtype != DType::f32)
    return {Errc::unsupported_dtype, where(op, name) + " is " + dtype_name(out.dtype) + "; " + dtype_name(in_dtype) +
                                         " or f32 expected"};
  FUSEKIT_TRY(fusekit::detail::check_rows(op, name, out));
  if (out.rows != rows || out.cols != cols)
    return {Errc::bad_shape, where(op, name) + " is " + str(out.rows) + " x " + str(out.cols) + ", expected " +
                                 str(rows) + " x " + str(cols)};
  return check_aligned16(op, name, out);
}

// An input the epilogue reads element by element (residual, gate table): shape and dtype only.
template <class Ptr>
Status check_input(const char* op, const char* name, const BasicRows<Ptr>& in, std::int64_t rows, std::int64_t cols,
                   DType dtype) {
  if (in.dtype != dtype)
    return {Errc::unsupported_dtype, where(op, name) + " is " + dtype_name(in.dtype) + ", expected " + dtype_name(dtype)};
  FUSEKIT_TRY(fusekit::detail::check_rows(op, name, in));
  if (in.rows != rows || in.cols != cols)
    return {Errc::bad_shape, where(op, name) + " is " + str(in.rows) + " x " + str(in.cols) + ", expected " +
                                 str(rows) + " x " + str(cols)};
  return {};
}

// An optional vector (bias, norm weight): absent ({nullptr, any dtype, 0}) is fine; present needs
// size and dtype.
inline Status check_optional_vec(const char* op, const char* name, const ConstVec& v, std::int64_t size, DType dtype) {
  if (!v.present()) return fusekit::detail::check_vec(op, name, v, size);  // an error if it has a size
  if (v.dtype != dtype)
    return {Errc::unsupported_dtype, where(op, name) + " is " + dtype_name(v.dtype) + ", expected " + dtype_name(dtype)};
  return fusekit::detail::check_vec(op, name, v, size);
}

// Strictly disjoint: an output that overlaps an operand the whole grid still reads is a race.
template <class P, class Q>
Status check_disjoint(const char* op, const char* a_name, const BasicRows<P>& a, const char* b_name,
                      const BasicRows<Q>& b) {
  if (!fusekit::detail::overlap(a, b)) return {};
  return {Errc::aliasing, where(op, a_name) + " overlaps " + b_name + " (they must be disjoint)"};
}

// The current GPU runs the mma.sync main loop (sm_80 or newer); reports its SM count.
inline Status query_device(const char* op, DeviceInfo& device) {
  FUSEKIT_TRY(current_device(device));
  if (device.major < 8)
    return {Errc::unsupported_device, where(op, "needs an sm_80 or newer GPU (device ") + str(device.ordinal) +
                                          " is sm_" + str(device.major) + "x)"};
  return {};
}

// Calls f(T{}, OutT{}) for the validated (input, output) dtype pair: (bf16|f16, same|f32).
template <class F> Status visit_types(DType in, DType out, F&& f) {
  if (in == DType::bf16) return out == DType::f32 ? f(bf16_t{}, float{}) : f(bf16_t{}, bf16_t{});
  return out == DType::f32 ? f(fp16_t{}, float{}) : f(fp16_t{}, fp16_t{});
}

}  // namespace fusekit::gemm::detail
