// fusekit/checkpoint/safetensors_header.hpp: parse and validate a safetensors file's header.
//
// Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON (may end in spaces),
// then the data section. Every rule of the format is checked here, on bytes alone, so the
// fuzzer and the memory-mapped reader share one validator. Each rule has its own message.
#pragma once

#include "fusekit/checkpoint/tensor_spec.hpp"
#include "fusekit/core/status.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fusekit::checkpoint {

// Larger headers are refused before anything is allocated (the format's own limit).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// The header's "__metadata__": string keys to string values, in file order.
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct TensorInfo {
  TensorSpec spec;
  std::uint64_t begin = 0;  // byte offsets into the data section, as the header states them
  std::uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<TensorInfo> tensors;  // sorted by data offset
  Metadata metadata;
  std::uint64_t data_start = 0;  // 8 + N: where the data section begins in the file
};

namespace detail {

inline Status format_error(std::string msg) { return {Errc::bad_format, "safetensors: " + std::move(msg)}; }

inline std::uint64_t read_le64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

// Thrown from the parse callback to stop at the first duplicate key or over-deep nesting.
struct HeaderRuleBroken {
  std::string message;
};

// nlohmann::json keeps the last of duplicate keys silently; this callback refuses them and
// stops nesting deeper than the format uses (object -> tensor object -> shape array).
class StrictJsonCallback {
 public:
  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (depth > 3) throw HeaderRuleBroken{"JSON nests deeper than the format allows"};
    if (event == E::object_start) keys_.emplace_back();
    if (event == E::object_end) keys_.pop_back();
    if (event == E::key && !keys_.back().insert(parsed.get<std::string>()).second)
      throw HeaderRuleBroken{"duplicate key \"" + parsed.get<std::string>() + "\""};
    return true;
  }

 private:
  std::vector<std::unordered_set<std::string>> keys_;
};

// A JSON integer in [0, limit], or an error naming `what`.
inline Status non_negative_integer(const nlohmann::json& v, const std::string& what, std::uint64_t limit,
                                   std::uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    return format_error(what + " is negative (" + std::to_string(v.get<std::int64_t>()) + ")");
  } else {
    return format_error(what + " is not an integer");
  }
  if (out > limit) return format_error(what + " (" + std::to_string(out) + ") is too large");
  return {};
}

inline Status parse_tensor_entry(const std::string& name, const nlohmann::json& entry, TensorInfo& out) {
  const std::string where = "tensor \"" + name + "\"";
  if (!entry.is_object()) return format_error(where + " is not a JSON object");
  for (const auto& [key, value] : entry.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      return format_error(where + " has unknown field \"" + key + "\"");

  auto dtype_it = entry.find("dtype");
  if (dtype_it == entry.end()) return format_error(where + " has no dtype");
  if (!dtype_it->is_string()) return format_error(where + " dtype is not a string");
  auto dtype = parse_dtype(dtype_it->get_ref<const std::string&>());
  if (!dtype) return format_error(where + " has unknown dtype \"" + dtype_it->get<std::string>() + "\"");

  auto shape_it = entry.find("shape");
  if (shape_it == entry.end()) return format_error(where + " has no shape");
  if (!shape_it->is_array()) return format_error(where + " shape is not an array");
  Shape shape;
  for (const auto& d : *shape_it) {
    std::uint64_t extent = 0;
    FUSEKIT_TRY(non_negative_integer(d, where + " shape extent", INT64_MAX, extent));
    shape.push_back(static_cast<std::int64_t>(extent));
  }

  auto off_it = entry.find("data_offsets");
  if (off_it == entry.end()) return format_error(where + " has no data_offsets");
  if (!off_it->is_array() || off_it->size() != 2)
    return format_error(where + " data_offsets is not an array of two integers");
  std::uint64_t begin = 0, end = 0;
  FUSEKIT_TRY(non_negative_integer((*off_it)[0], where + " data_offsets[0]", UINT64_MAX, begin));
  FUSEKIT_TRY(non_negative_integer((*off_it)[1], where + " data_offsets[1]", UINT64_MAX, end));
  if (end < begin) return format_error(where + " data_offsets end before they begin");

  auto bytes = byte_size(*dtype, shape);
  if (!bytes) return format_error(where + " byte size of shape " + shape_string(shape) + " overflows 64 bits");
  if (end - begin != *bytes)
    return format_error(where + " has " + std::to_string(end - begin) + " bytes of data, but shape " +
                        shape_string(shape) + " x " + std::string(dtype_name(*dtype)) + " needs " +
                        std::to_string(*bytes));
  out = TensorInfo{TensorSpec{name, *dtype, std::move(shape)}, begin, end};
  return {};
}

inline Status parse_metadata(const nlohmann::json& value, SafetensorsHeader& out) {
  if (!value.is_object()) return format_error("__metadata__ is not a JSON object");
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) return format_error("__metadata__ value of \"" + key + "\" is not a string");
    out.metadata.emplace_back(key, v.get<std::string>());
  }
  return {};
}

// Offsets sorted must tile the data section exactly: start at 0, no gap, no overlap, no tail.
inline Status check_data_layout(std::vector<TensorInfo>& tensors, std::uint64_t data_bytes) {
  std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const auto& t : tensors) {
    if (t.begin != expected)
      return format_error("tensor \"" + t.spec.name + "\" data starts at " + std::to_string(t.begin) +
                          ", expected " + std::to_string(expected) +
                          (t.begin < expected ? " (overlaps the previous tensor)" : " (gap in the data section)"));
    expected = t.end;
  }
  if (expected != data_bytes)
    return format_error("tensor data ends at " + std::to_string(expected) + ", but the data section has " +
                        std::to_string(data_bytes) + " bytes");
  return {};
}

}  // namespace detail

// Validates `file` (the whole file's bytes) and describes its tensors; nothing is copied
// but names and shapes.
inline Status parse_safetensors_header(std::span<const std::byte> file, SafetensorsHeader& out) {
  using detail::format_error;
  if (file.size() < 8)
    return format_error("file has " + std::to_string(file.size()) + " bytes, fewer than the 8-byte header length");
  const std::uint64_t n = detail::read_le64(file.data());
  if (n > kMaxHeaderBytes)
    return format_error("header length " + std::to_string(n) + " exceeds the limit of " +
                        std::to_string(kMaxHeaderBytes) + " bytes");
  if (n > file.size() - 8)
    return format_error("header length " + std::to_string(n) + " runs past the end of the file (" +
                        std::to_string(file.size()) + " bytes)");
  const char* text = reinterpret_cast<const char*>(file.data() + 8);
  if (n == 0 || text[0] != '{') return format_error("header is not a JSON object (must start with '{')");

  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text, text + n, detail::StrictJsonCallback{});
  } catch (const detail::HeaderRuleBroken& e) {
    return format_error(e.message);
  } catch (const nlohmann::json::exception& e) {
    return format_error(std::string("header is not valid UTF-8 JSON: ") + e.what());
  }
  if (!root.is_object()) return format_error("header is not a JSON object");

  SafetensorsHeader h;
  h.data_start = 8 + n;
  for (const auto& [name, value] : root.items()) {
    if (name == "__metadata__") {
      FUSEKIT_TRY(detail::parse_metadata(value, h));
      continue;
    }
    TensorInfo info;
    FUSEKIT_TRY(detail::parse_tensor_entry(name, value, info));
    h.tensors.push_back(std::move(info));
  }
  FUSEKIT_TRY(detail::check_data_layout(h.tensors, file.size() - h.data_start));
  out = std::move(h);
  return {};
}

}  // namespace fusekit::checkpoint
