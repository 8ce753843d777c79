// fusekit/checkpoint/convert.hpp: apply a plan to a checkpoint on disk.
//
// The input is checked against the plan first (every expected tensor present with its dtype
// and shape, nothing left over, recomputed tensors equal to their recomputation bit for bit, the
// output directory not the input's); the first problem is returned and nothing is written. Each
// output tensor is then lowered to byte pieces of the input files, which the writer copies file
// to file in the kernel: no tensor passes through a user buffer, and memory stays flat whatever
// the checkpoint's size.
#pragma once

#include "fusekit/checkpoint/plan.hpp"
#include "fusekit/checkpoint/sharded_checkpoint.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fusekit::checkpoint {

// A block of consecutive rows of one of a rule's inputs.
struct RowRun {
  std::size_t input = 0;
  std::int64_t first_row = 0, rows = 0;
};

// Where the rows of `r.outputs[output]` come from, in order (not for recompute).
inline std::vector<RowRun> row_runs(const Rule& r, std::size_t output) {
  std::vector<RowRun> runs;
  const std::int64_t rows = r.inputs.empty() ? 0 : detail::rows_of(r.inputs[0]);
  switch (r.transform) {
    case Transform::rename: runs.push_back({0, 0, rows}); break;
    case Transform::split_rows: {
      std::int64_t first = 0;
      for (std::size_t i = 0; i < output; ++i) first += r.outputs[i].shape[0];
      runs.push_back({0, first, r.outputs[output].shape[0]});
      break;
    }
    case Transform::concat_rows:
      for (std::size_t i = 0; i < r.inputs.size(); ++i) runs.push_back({i, 0, r.inputs[i].shape[0]});
      break;
    case Transform::swap_row_halves: runs = {{0, rows / 2, rows / 2}, {0, 0, rows / 2}}; break;
    case Transform::heads_to_parts:
    case Transform::parts_to_heads: {
      const std::int64_t h = r.heads, p = r.parts, d = rows / (h * p);
      const bool to_parts = r.transform == Transform::heads_to_parts;
      // Output order is (part, head) for heads_to_parts and (head, part) for its inverse.
      for (std::int64_t outer = 0; outer < (to_parts ? p : h); ++outer)
        for (std::int64_t inner = 0; inner < (to_parts ? h : p); ++inner) {
          const std::int64_t head = to_parts ? inner : outer, part = to_parts ? outer : inner;
          const std::int64_t source_block = to_parts ? head * p + part : part * h + head;
          runs.push_back({0, source_block * d, d});
        }
      break;
    }
    case Transform::drop:
    case Transform::recompute: break;
  }
  return runs;
}

inline std::shared_ptr<const std::vector<std::byte>> recompute_bytes(const RopeInvFreq& recipe) {
  auto out = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(recipe.count) * 4);
  for (std::int64_t i = 0; i < recipe.count; ++i) {
    const float v = recipe.value(i);
    std::memcpy(out->data() + 4 * i, &v, 4);
  }
  return out;
}

namespace detail {

inline Status input_error(const Plan& plan, const std::string& msg) {
  return {Errc::bad_format, "checkpoint does not match plan " + plan.from + " -> " + plan.to + ": " + msg};
}

inline std::string float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g (0x%08X)", static_cast<double>(f), u);
  return buf;
}

// A stored recomputable tensor must equal its recomputation bit for bit, or dropping it would
// lose information and the way back would not reproduce the input.
inline Status check_recomputable(const Plan& plan, const TensorView& v, const RopeInvFreq& recipe) {
  for (std::int64_t i = 0; i < recipe.count; ++i) {
    const float want = recipe.value(i);
    if (std::memcmp(v.bytes.data() + 4 * i, &want, 4) != 0) {
      float stored;
      std::memcpy(&stored, v.bytes.data() + 4 * i, 4);
      return input_error(plan, v.spec->name + "[" + std::to_string(i) + "] = " + float_bits(stored) +
                                   " is not the recomputed value " + float_bits(want) +
                                   " (different rope theta, or computed another way?); refusing to drop it");
    }
  }
  return {};
}

}  // namespace detail

// The first way `in` differs from what `plan` expects, or ok.
inline Status check_input(const Checkpoint& in, const Plan& plan) {
  FUSEKIT_TRY(check_plan(plan));
  std::set<std::string> expected;
  for (const auto& g : plan.groups)
    for (const auto& r : g.rules)
      for (const auto& t : r.inputs) {
        expected.insert(t.name);
        TensorView v = in.find(t.name);
        if (!v.spec) return detail::input_error(plan, "missing tensor " + t.name + " (group " + g.name + ")");
        if (v.spec->dtype != t.dtype || v.spec->shape != t.shape)
          return detail::input_error(plan, "tensor " + describe(*v.spec) + ", plan expects " + describe(t));
        if (r.transform == Transform::drop) FUSEKIT_TRY(detail::check_recomputable(plan, v, *r.recipe));
      }
  std::vector<std::string> unexpected;
  for (const auto& v : in.views())
    if (!expected.count(v.spec->name)) unexpected.push_back(v.spec->name);
  if (!unexpected.empty()) {
    std::sort(unexpected.begin(), unexpected.end());
    return detail::input_error(plan, "unexpected tensor " + unexpected[0] + " (" + std::to_string(unexpected.size()) +
                                         " tensors the plan does not use)");
  }
  return {};
}

// The output tensors of `plan` as byte pieces of `in` (which check_input accepted).
inline std::vector<OutputTensor> lower_plan(const Checkpoint& in, const Plan& plan) {
  std::vector<OutputTensor> out;
  for (const auto& g : plan.groups)
    for (const auto& r : g.rules)
      for (std::size_t o = 0; o < r.outputs.size(); ++o) {
        OutputTensor t{r.outputs[o], {}};
        if (r.transform == Transform::recompute) {
          t.pieces.push_back(Piece::of_buffer(recompute_bytes(*r.recipe)));
        } else {
          for (const RowRun& run : row_runs(r, o)) {
            const TensorSpec& src = r.inputs[run.input];
            const std::uint64_t rb = row_bytes(src.dtype, src.shape);
            TensorView v = in.find(src.name);
            t.pieces.push_back(Piece::of(v, static_cast<std::uint64_t>(run.first_row) * rb,
                                         static_cast<std::uint64_t>(run.rows) * rb));
          }
        }
        out.push_back(std::move(t));
      }
  return out;
}

// The `__metadata__` key that marks a checkpoint written in fusekit's native layout: native and
// the original release share every name but rope.inv_freq, so the names alone cannot tell them
// apart once that tensor is gone.
inline constexpr const char* kLayoutKey = "fusekit_layout";

// What a conversion writes as `__metadata__`: the input's, in its order, with the layout marker
// set when the output is native and removed otherwise, so that a round trip through native gives
// the input's metadata back exactly.
inline Metadata output_metadata(const Metadata& input, const std::string& to_layout) {
  Metadata out;
  for (const auto& kv : input)
    if (kv.first != kLayoutKey) out.push_back(kv);
  if (to_layout == "native") out.emplace_back(kLayoutKey, "native");
  return out;
}

// Refuses an output directory that holds a file of the input: writing there would replace the
// input (its index would be unlinked as stale) while it is being read.
inline Status check_output_apart(const Checkpoint& in, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(out_dir, ec)) return {};
  for (const auto& shard : in.shards()) {
    const fs::path dir = fs::path(shard.path()).parent_path();
    if (fs::equivalent(dir.empty() ? fs::path(".") : dir, out_dir, ec))
      return {Errc::bad_argument, "output directory " + out_dir + " holds the input (" + shard.path() +
                                      "); write the converted checkpoint somewhere else"};
  }
  return {};
}

struct ConvertOptions {
  ShardingOptions sharding;
  WriteOptions write;
  std::optional<Metadata> metadata;  // unset: output_metadata(the input's, plan.to)
  std::function<void(const WriteProgress&)> progress;
};

// Checks `in` against `plan`, then writes the converted checkpoint into `out_dir`.
inline Status convert(const Checkpoint& in, const Plan& plan, const std::string& out_dir, const ConvertOptions& opt = {}) {
  FUSEKIT_TRY(check_output_apart(in, out_dir));
  FUSEKIT_TRY(check_input(in, plan));
  const Metadata metadata = opt.metadata ? *opt.metadata : output_metadata(in.metadata(), plan.to);
  return write_checkpoint(out_dir, lower_plan(in, plan), metadata, opt.sharding, opt.write, opt.progress);
}

// Whether `converted` (made from `original` by `plan`) maps back to `original` bit for bit,
// comparing in place through the mappings: no output is written. `difference` names the
// first tensor that differs.
inline Status verify_inverse(const Checkpoint& original, const Checkpoint& converted, const Plan& plan, bool& bitwise,
                             std::string* difference = nullptr) {
  const Plan back = inverse(plan);
  FUSEKIT_TRY(check_input(converted, back));
  FUSEKIT_TRY(check_input(original, plan));
  bitwise = true;
  for (const OutputTensor& t : lower_plan(converted, back)) {
    TensorView want = original.find(t.spec.name);
    std::uint64_t at = 0;
    for (const Piece& p : t.pieces) {
      if (std::memcmp(want.bytes.data() + at, p.bytes.data(), p.size) != 0) {
        bitwise = false;
        if (difference) *difference = t.spec.name;
        return {};
      }
      at += p.size;
    }
  }
  return {};
}

// Every tensor of `a` is in `b` with the same dtype, shape and bytes, and `b` has no other.
inline bool same_tensors(const Checkpoint& a, const Checkpoint& b, std::string* difference = nullptr) {
  if (a.size() != b.size()) {
    if (difference) *difference = "tensor counts " + std::to_string(a.size()) + " and " + std::to_string(b.size());
    return false;
  }
  for (const TensorView& va : a.views()) {
    TensorView vb = b.find(va.spec->name);
    const bool same = vb.spec && vb.spec->dtype == va.spec->dtype && vb.spec->shape == va.spec->shape &&
                      std::memcmp(va.bytes.data(), vb.bytes.data(), va.bytes.size()) == 0;
    if (!same) {
      if (difference) *difference = va.spec->name;
      return false;
    }
  }
  return true;
}

}  // namespace fusekit::checkpoint
