// fusekit/core/views.hpp: non-owning descriptions of device buffers, and the checks on them
// that every host entry point shares.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/core/status.hpp"

#include <cstdint>
#include <string>

namespace fusekit {

// A row-major matrix in device memory: element (r, c) lives at data + r * stride + c.
template <class Ptr> struct BasicRows {
  Ptr data = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stride = 0;  // elements between row starts; 0 means "= cols" (dense)

  std::int64_t row_stride() const { return stride == 0 ? cols : stride; }
  bool empty() const { return rows == 0 || cols == 0; }
};
using Rows = BasicRows<void*>;
using ConstRows = BasicRows<const void*>;

inline ConstRows as_const(const Rows& r) { return {r.data, r.dtype, r.rows, r.cols, r.stride}; }

// A vector in device memory (weights, biases): `size` elements of `dtype` at `data`.
struct ConstVec {
  const void* data = nullptr;
  DType dtype = DType::f32;
  std::int64_t size = 0;
  bool present() const { return data != nullptr; }
};

namespace detail {

inline std::string str(std::int64_t v) { return std::to_string(v); }

// Shape, pointer and element-alignment checks for one matrix argument.
template <class Ptr>
Status check_rows(const char* op, const char* name, const BasicRows<Ptr>& v) {
  const std::string where = std::string(op) + ": " + name;
  if (!dtype_valid(v.dtype))
    return {Errc::unsupported_dtype, where + " has no valid dtype (" + str(int(v.dtype)) + ")"};
  if (v.rows < 0 || v.cols < 0)
    return {Errc::bad_shape, where + " has negative extent (" + str(v.rows) + " x " + str(v.cols) + ")"};
  if (v.stride != 0 && v.stride < v.cols)
    return {Errc::bad_shape, where + ".stride (" + str(v.stride) + ") < cols (" + str(v.cols) + ")"};
  if (v.empty()) return {};
  if (v.data == nullptr) return {Errc::null_pointer, where + " is null with " + str(v.rows) + " x " + str(v.cols) + " elements"};
  if (reinterpret_cast<std::uintptr_t>(v.data) % dtype_size(v.dtype) != 0)
    return {Errc::misaligned, where + " is not aligned to its element size (" + str(dtype_size(v.dtype)) + " bytes)"};
  return {};
}

// An optional vector: absent is {nullptr, any dtype, 0 elements}; a null pointer with a size is an
// error, not a quiet "absent".
inline Status check_vec(const char* op, const char* name, const ConstVec& v, std::int64_t expected) {
  const std::string where = std::string(op) + ": " + name;
  if (!v.present()) {
    if (v.size == 0) return {};
    return {Errc::null_pointer, where + " is null with " + str(v.size) + " elements"};
  }
  if (!dtype_valid(v.dtype))
    return {Errc::unsupported_dtype, where + " has no valid dtype (" + str(int(v.dtype)) + ")"};
  if (v.size != expected)
    return {Errc::bad_shape, where + " has " + str(v.size) + " elements, expected " + str(expected)};
  if (reinterpret_cast<std::uintptr_t>(v.data) % dtype_size(v.dtype) != 0)
    return {Errc::misaligned, where + " is not aligned to its element size"};
  return {};
}

// A vector as a one-row matrix (for the overlap checks below); absent vectors are empty.
inline ConstRows vec_rows(const ConstVec& v) { return {v.data, v.dtype, v.present() ? 1 : 0, v.size, 0}; }

// Byte range [first, last) touched by a matrix; empty views touch nothing.
template <class Ptr> inline void byte_span(const BasicRows<Ptr>& v, std::uintptr_t& lo, std::uintptr_t& hi) {
  lo = reinterpret_cast<std::uintptr_t>(v.data);
  hi = v.empty() ? lo : lo + ((v.rows - 1) * v.row_stride() + v.cols) * dtype_size(v.dtype);
}

// Whether two matrices share any byte (by their spans: an interleaved pair counts as overlapping).
template <class P, class Q> bool overlap(const BasicRows<P>& a, const BasicRows<Q>& b) {
  if (a.empty() || b.empty()) return false;
  std::uintptr_t a0, a1, b0, b1;
  byte_span(a, a0, a1);
  byte_span(b, b0, b1);
  return a0 < b1 && b0 < a1;
}

// Two matrices may be the very same buffer (in place: same pointer, stride and dtype), or disjoint.
template <class P, class Q>
Status check_alias(const char* op, const char* a_name, const BasicRows<P>& a, const char* b_name,
                   const BasicRows<Q>& b) {
  if (!overlap(a, b)) return {};
  if (a.data == b.data && a.row_stride() == b.row_stride() && a.dtype == b.dtype) return {};
  return {Errc::aliasing, std::string(op) + ": " + a_name + " and " + b_name +
                              " overlap without being the same buffer (in-place needs equal pointer, stride and dtype)"};
}

}  // namespace detail
}  // namespace fusekit
