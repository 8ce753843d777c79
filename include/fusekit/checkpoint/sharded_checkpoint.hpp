// fusekit/checkpoint/sharded_checkpoint.hpp: a checkpoint of one or more safetensors shards.
//
// On disk: either one `*.safetensors` file, or shards plus an index JSON
// (`{"metadata": {...}, "weight_map": {tensor: shard file}}`) beside them. Shards are
// memory-mapped, not read: a tensor's pages are touched only while it is copied, so memory
// stays near one shard's working set whatever the size of the model.
#pragma once

#include "fusekit/checkpoint/safetensors_reader.hpp"
#include "fusekit/checkpoint/safetensors_writer.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fusekit::checkpoint {

inline constexpr const char* kIndexName = "model.safetensors.index.json";

class Checkpoint {
 public:
  // `path`: a .safetensors file, an index JSON, or a directory holding one index, or one
  // .safetensors file, or model.safetensors beside other files.
  static Status open(const std::string& path, Checkpoint& out) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> indexes, files;
      for (const auto& e : fs::directory_iterator(path, ec)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with(".safetensors.index.json")) indexes.push_back(e.path().string());
        else if (name.ends_with(".safetensors")) files.push_back(e.path().string());
      }
      if (ec) return {Errc::io_error, "cannot list " + path + ": " + ec.message()};
      if (indexes.size() == 1) return open_index(indexes[0], out);
      if (indexes.empty() && files.size() == 1) return open_single(files[0], out);
      // write_checkpoint's single-file name wins over unreferenced shards of an earlier write.
      const std::string single = path + "/model.safetensors";
      if (indexes.empty() && fs::exists(single, ec)) return open_single(single, out);
      return {Errc::bad_format, path + ": expected one *.safetensors.index.json or exactly one *.safetensors file, found " +
                                    std::to_string(indexes.size()) + " index files and " +
                                    std::to_string(files.size()) + " safetensors files"};
    }
    if (path.ends_with(".json")) return open_index(path, out);
    return open_single(path, out);
  }

  std::size_t size() const { return where_.size(); }
  const std::vector<SafetensorsFile>& shards() const { return shards_; }

  // The shards' `__metadata__` merged, in shard order; where shards disagree on a key, the first
  // shard's value (shards written together carry the same metadata).
  Metadata metadata() const {
    Metadata all;
    for (const auto& s : shards_)
      for (const auto& kv : s.header().metadata)
        if (std::none_of(all.begin(), all.end(), [&](const auto& have) { return have.first == kv.first; }))
          all.push_back(kv);
    return all;
  }

  // Null spec when absent.
  TensorView find(std::string_view name) const {
    auto it = where_.find(std::string(name));
    return it == where_.end() ? TensorView{} : shards_[it->second].find(name);
  }
  // Every tensor, shard by shard, in file order.
  std::vector<TensorView> views() const {
    std::vector<TensorView> all;
    for (const auto& s : shards_)
      for (std::size_t i = 0; i < s.size(); ++i) all.push_back(s.view(i));
    return all;
  }

 private:
  static Status open_single(const std::string& file, Checkpoint& out) {
    Checkpoint c;
    c.shards_.emplace_back();
    FUSEKIT_TRY(SafetensorsFile::open(file, c.shards_.back()));
    for (std::size_t i = 0; i < c.shards_[0].size(); ++i) c.where_.emplace(c.shards_[0].view(i).spec->name, 0);
    out = std::move(c);
    return {};
  }

  static Status index_error(const std::string& path, const std::string& msg) {
    return {Errc::bad_format, path + ": " + msg};
  }

  static Status open_index(const std::string& index_path, Checkpoint& out) {
    std::ifstream in(index_path, std::ios::binary);
    if (!in) return {Errc::io_error, "cannot open " + index_path};
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json root;
    try {
      root = nlohmann::json::parse(text.str(), detail::StrictJsonCallback{});
    } catch (const detail::HeaderRuleBroken& e) {
      return index_error(index_path, e.message);
    } catch (const nlohmann::json::exception& e) {
      return index_error(index_path, std::string("not valid UTF-8 JSON: ") + e.what());
    }
    if (!root.is_object()) return index_error(index_path, "index is not a JSON object");
    auto map_it = root.find("weight_map");
    if (map_it == root.end() || !map_it->is_object()) return index_error(index_path, "index has no weight_map object");

    // Shards in first-appearance order of the sorted tensor names: deterministic.
    Checkpoint c;
    std::map<std::string, std::size_t> shard_of_file;
    const std::string dir = parent_directory(index_path);
    for (const auto& [name, file] : map_it->items()) {
      if (!file.is_string()) return index_error(index_path, "weight_map entry \"" + name + "\" is not a string");
      const std::string& f = file.get_ref<const std::string&>();
      if (f.empty() || f.find('/') != std::string::npos || f == "." || f == "..")
        return index_error(index_path, "weight_map entry \"" + name + "\" names \"" + f + "\", not a file beside the index");
      auto [it, added] = shard_of_file.emplace(f, c.shards_.size());
      if (added) {
        c.shards_.emplace_back();
        FUSEKIT_TRY(SafetensorsFile::open(dir + "/" + f, c.shards_.back()));
      }
      c.where_.emplace(name, it->second);
    }
    // The index and the shards must agree both ways.
    for (const auto& [name, shard] : c.where_)
      if (!c.shards_[shard].find(name).spec)
        return index_error(index_path, "index puts \"" + name + "\" in " + c.shards_[shard].path() + ", which lacks it");
    for (const auto& s : c.shards_)
      for (std::size_t i = 0; i < s.size(); ++i) {
        const std::string& name = s.view(i).spec->name;
        auto it = c.where_.find(name);
        if (it == c.where_.end()) return index_error(index_path, s.path() + " holds \"" + name + "\", which the index does not list");
        if (&c.shards_[it->second] != &s)
          return index_error(index_path, "\"" + name + "\" is in " + s.path() + " and in " + c.shards_[it->second].path());
      }
    out = std::move(c);
    return {};
  }

  std::vector<SafetensorsFile> shards_;
  std::unordered_map<std::string, std::size_t> where_;
};

struct ShardingOptions {
  std::uint64_t max_shard_bytes = 5'000'000'000;  // the size the Hugging Face tools default to
  std::string_view prefix = "model";  // shard files are <prefix>-0000i-of-0000n.safetensors
};

struct WriteProgress {
  std::uint64_t done = 0, total = 0;  // bytes, over all shards
  std::size_t shard = 0, shards = 0;
};

// Tensors cut into shards in the order given: a new shard starts when the next tensor
// would pass max_shard_bytes. One shard is written as <prefix>.safetensors with no index.
inline std::vector<std::vector<OutputTensor>> partition_shards(std::vector<OutputTensor> tensors,
                                                               std::uint64_t max_shard_bytes) {
  std::vector<std::vector<OutputTensor>> shards(1);
  std::uint64_t in_shard = 0;
  for (auto& t : tensors) {
    const std::uint64_t size = *byte_size(t.spec.dtype, t.spec.shape);
    if (!shards.back().empty() && in_shard + size > max_shard_bytes) {
      shards.emplace_back();
      in_shard = 0;
    }
    in_shard += size;
    shards.back().push_back(std::move(t));
  }
  return shards;
}

inline std::string shard_file_name(std::string_view prefix, std::size_t i, std::size_t n) {
  if (n == 1) return std::string(prefix) + ".safetensors";
  char buf[64];
  std::snprintf(buf, sizeof buf, "-%05zu-of-%05zu.safetensors", i + 1, n);
  return std::string(prefix) + buf;
}

namespace detail {

// Directories that did not exist when created here; unless kept, removed again (deepest first,
// only while empty) when the write fails, so a failed write leaves no empty output folder.
// Declared before the write's files, it runs after their temporaries are gone.
class CreatedDirectories {
 public:
  Status create(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      created_.push_back(p);
      if (p == p.parent_path()) break;
    }
    fs::create_directories(dir, ec);
    if (ec) return {Errc::io_error, "cannot create directory " + dir + ": " + ec.message()};
    return {};
  }
  void keep() { created_.clear(); }
  ~CreatedDirectories() {
    for (const auto& p : created_) ::rmdir(p.c_str());
  }

 private:
  std::vector<std::filesystem::path> created_;  // deepest first
};

}  // namespace detail

// Writes a whole checkpoint into `dir` (created if missing). All shards and the index
// become visible together at the end; any error before that leaves `dir` as it was (not even
// created, if it did not exist).
inline Status write_checkpoint(const std::string& dir, std::vector<OutputTensor> tensors, const Metadata& metadata = {},
                               const ShardingOptions& sharding = {}, const WriteOptions& opt = {},
                               const std::function<void(const WriteProgress&)>& progress = {}) {
  FUSEKIT_TRY(detail::check_output_tensors(tensors));
  FUSEKIT_TRY(detail::check_metadata(metadata));
  if (sharding.max_shard_bytes == 0) return {Errc::bad_argument, "write_checkpoint: max_shard_bytes is 0"};
  detail::CreatedDirectories created;
  FUSEKIT_TRY(created.create(dir));

  auto shards = partition_shards(std::move(tensors), sharding.max_shard_bytes);
  WriteProgress state;
  state.shards = shards.size();
  for (const auto& s : shards) state.total += safetensors_file_size(s, metadata);

  std::vector<AtomicFile> files(shards.size());
  nlohmann::json weight_map = nlohmann::json::object();
  std::uint64_t tensor_bytes = 0, before = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string name = shard_file_name(sharding.prefix, i, shards.size());
    FUSEKIT_TRY(AtomicFile::create(dir + "/" + name, files[i]));
    state.shard = i;
    ByteProgress on_bytes;
    if (progress) on_bytes = [&](std::uint64_t at) { state.done = before + at; progress(state); };
    FUSEKIT_TRY(write_safetensors(files[i], shards[i], metadata, opt, on_bytes));
    before += safetensors_file_size(shards[i], metadata);
    for (const auto& t : shards[i]) {
      weight_map[t.spec.name] = name;
      tensor_bytes += *byte_size(t.spec.dtype, t.spec.shape);
    }
  }
  if (shards.size() > 1) {
    nlohmann::json index = {{"metadata", {{"total_size", tensor_bytes}}}, {"weight_map", weight_map}};
    const std::string text = index.dump(2) + "\n";
    files.emplace_back();
    FUSEKIT_TRY(AtomicFile::create(dir + "/" + std::string(sharding.prefix) + ".safetensors.index.json", files.back()));
    FUSEKIT_TRY(detail::pwrite_all(files.back().fd(), reinterpret_cast<const std::byte*>(text.data()), text.size(), 0,
                                   files.back().temp_path()));
  }
  FUSEKIT_TRY(commit_all(files));
  created.keep();
  if (shards.size() == 1) {
    // An index left by an earlier sharded write would shadow the new single file.
    const std::string stale = dir + "/" + std::string(sharding.prefix) + ".safetensors.index.json";
    if (::unlink(stale.c_str()) != 0 && errno != ENOENT) return errno_status("cannot remove stale index", stale);
  }
  return {};
}

}  // namespace fusekit::checkpoint
