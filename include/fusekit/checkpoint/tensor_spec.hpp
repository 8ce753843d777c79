// fusekit/checkpoint/tensor_spec.hpp: a tensor's name, type and shape, and overflow-checked
// byte counts (sizes come from untrusted headers, so every product is checked).
#pragma once

#include "fusekit/checkpoint/tensor_dtype.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusekit::checkpoint {

using Shape = std::vector<std::int64_t>;

struct TensorSpec {
  std::string name;
  TensorDType dtype = TensorDType::F32;
  Shape shape;
};

// a * b and a + b, or nullopt on 64-bit overflow.
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Elements of a shape (1 for a scalar), nullopt if an extent is negative or the product overflows.
inline std::optional<std::uint64_t> element_count(const Shape& shape) {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    auto next = checked_mul(n, static_cast<std::uint64_t>(d));
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

inline std::optional<std::uint64_t> byte_size(TensorDType t, const Shape& shape) {
  auto n = element_count(shape);
  return n ? checked_mul(*n, element_size(t)) : std::nullopt;
}

// Bytes of one row (all extents after the first); a 1-D tensor's rows are single elements.
inline std::uint64_t row_bytes(TensorDType t, const Shape& shape) {
  std::uint64_t n = element_size(t);
  for (std::size_t i = 1; i < shape.size(); ++i) n *= static_cast<std::uint64_t>(shape[i]);
  return n;
}

inline std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// "name BF16 [7168, 5376]"
inline std::string describe(const TensorSpec& t) {
  return t.name + " " + std::string(dtype_name(t.dtype)) + " " + shape_string(t.shape);
}

}  // namespace fusekit::checkpoint
