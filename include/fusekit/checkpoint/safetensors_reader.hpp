// fusekit/checkpoint/safetensors_reader.hpp: one safetensors file, memory-mapped, validated,
// handing out zero-copy views of its tensors.
#pragma once

#include "fusekit/checkpoint/mapped_file.hpp"
#include "fusekit/checkpoint/safetensors_header.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace fusekit::checkpoint {

// A tensor inside a mapped file. Data in a safetensors file carries no alignment promise,
// so `bytes` may start at any address: read elements with memcpy, not by casting.
struct TensorView {
  const TensorSpec* spec = nullptr;
  std::span<const std::byte> bytes;
  int fd = -1;                     // the file's descriptor, for copy_file_range
  std::uint64_t file_offset = 0;   // where `bytes` starts in that file
};

class SafetensorsFile {
 public:
  static Status open(const std::string& path, SafetensorsFile& out) {
    SafetensorsFile f;
    FUSEKIT_TRY(MappedFile::open(path, f.file_));
    Status s = parse_safetensors_header(f.file_.bytes(), f.header_);
    if (!s.ok()) return {s.code(), path + ": " + s.message()};
    f.index_.reserve(f.header_.tensors.size());
    for (std::size_t i = 0; i < f.header_.tensors.size(); ++i) f.index_.emplace(f.header_.tensors[i].spec.name, i);
    out = std::move(f);
    return {};
  }

  const std::string& path() const { return file_.path(); }
  const SafetensorsHeader& header() const { return header_; }
  std::size_t size() const { return header_.tensors.size(); }

  // Tensors in file order (by data offset).
  TensorView view(std::size_t i) const {
    const TensorInfo& t = header_.tensors[i];
    const std::uint64_t at = header_.data_start + t.begin;
    return {&t.spec, file_.bytes().subspan(at, t.end - t.begin), file_.fd(), at};
  }
  // Null spec when the file has no tensor of that name.
  TensorView find(std::string_view name) const {
    auto it = index_.find(std::string(name));
    return it == index_.end() ? TensorView{} : view(it->second);
  }

 private:
  MappedFile file_;
  SafetensorsHeader header_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace fusekit::checkpoint
