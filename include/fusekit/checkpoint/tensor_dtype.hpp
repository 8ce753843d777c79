// fusekit/checkpoint/tensor_dtype.hpp: the element types a safetensors file may name.
//
// A checkpoint carries more types than the kernels compute in (core DType), so the adapter
// keeps its own list; sub-byte types (F4, F6) are not supported and read as unknown.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fusekit::checkpoint {

enum class TensorDType : std::uint8_t {
  BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F8_E4M3, F8_E5M2, F8_E8M0,
};

namespace detail {
struct DTypeRow {
  TensorDType type;
  std::string_view name;
  std::size_t size;
};
inline constexpr std::array<DTypeRow, 16> kDTypes{{
    {TensorDType::BOOL, "BOOL", 1},       {TensorDType::U8, "U8", 1},
    {TensorDType::I8, "I8", 1},           {TensorDType::I16, "I16", 2},
    {TensorDType::U16, "U16", 2},         {TensorDType::F16, "F16", 2},
    {TensorDType::BF16, "BF16", 2},       {TensorDType::I32, "I32", 4},
    {TensorDType::U32, "U32", 4},         {TensorDType::F32, "F32", 4},
    {TensorDType::F64, "F64", 8},         {TensorDType::I64, "I64", 8},
    {TensorDType::U64, "U64", 8},         {TensorDType::F8_E4M3, "F8_E4M3", 1},
    {TensorDType::F8_E5M2, "F8_E5M2", 1}, {TensorDType::F8_E8M0, "F8_E8M0", 1},
}};
constexpr bool rows_follow_enum() {
  for (std::size_t i = 0; i < kDTypes.size(); ++i)
    if (static_cast<std::size_t>(kDTypes[i].type) != i) return false;
  return true;
}
static_assert(rows_follow_enum(), "kDTypes must list the types in enum order");
}  // namespace detail

constexpr std::size_t element_size(TensorDType t) {
  return detail::kDTypes[static_cast<std::size_t>(t)].size;
}

constexpr std::string_view dtype_name(TensorDType t) {
  return detail::kDTypes[static_cast<std::size_t>(t)].name;
}

// The safetensors spelling ("BF16") to the enum; nullopt for a name the format does not define.
constexpr std::optional<TensorDType> parse_dtype(std::string_view name) {
  for (const auto& row : detail::kDTypes)
    if (row.name == name) return row.type;
  return std::nullopt;
}

}  // namespace fusekit::checkpoint
