// fusekit/checkpoint/h3_fixture.hpp: generate a MiniMax-H3 checkpoint of random weights in any
// layout, at any config (the tiny one for tests, full width with a few blocks for benchmarks
// and GPU examples).
//
// Values are a pure function of (seed, tensor name, byte offset), finite for the float types,
// and produced chunk by chunk while writing, so a multi-GB checkpoint needs no buffer of its
// size. rope.inv_freq holds its exact recomputation, so it round-trips bit for bit.
#pragma once

#include "fusekit/checkpoint/convert.hpp"
#include "fusekit/checkpoint/h3_preset.hpp"

#include <cstring>
#include <functional>
#include <string>

namespace fusekit::checkpoint {

struct H3FixtureOptions {
  H3Config config = H3Config::tiny();
  H3Layout layout = H3Layout::diffusers;
  std::size_t shards = 2;  // about this many files of equal size (more if one tensor is larger)
  std::uint64_t seed = 1;
  std::function<void(const WriteProgress&)> progress;
};

namespace detail {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Clears the top exponent bit of every element: |x| < 2, never Inf or NaN.
inline std::uint64_t finite_mask(TensorDType t) {
  switch (t) {
    case TensorDType::BF16: return 0xBFFFBFFFBFFFBFFFull;
    case TensorDType::F16: return 0xBFFFBFFFBFFFBFFFull;
    case TensorDType::F32: return 0xBFFFFFFFBFFFFFFFull;
    case TensorDType::F64: return 0xBFFFFFFFFFFFFFFFull;
    default: return ~0ull;
  }
}

// Fills bytes [offset, offset + out.size()) of a tensor's random stream: word k of the
// stream is splitmix64(key + k), so any chunking gives the same bytes.
inline void fill_random(std::uint64_t key, std::uint64_t mask, std::uint64_t offset, std::span<std::byte> out) {
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t at = offset + i;
    const std::uint64_t word = splitmix64(key + at / 8) & mask;
    const std::size_t skip = at % 8, n = std::min<std::size_t>(8 - skip, out.size() - i);
    std::memcpy(out.data() + i, reinterpret_cast<const std::byte*>(&word) + skip, n);
    i += n;
  }
}

inline std::uint64_t name_key(std::uint64_t seed, const std::string& name) {
  std::uint64_t h = splitmix64(seed);
  for (unsigned char c : name) h = splitmix64(h ^ c);
  return h;
}

}  // namespace detail

// The fixture's tensors, in plan order, as pieces that generate their bytes.
inline std::vector<OutputTensor> h3_fixture_tensors(const H3FixtureOptions& opt) {
  std::vector<OutputTensor> out;
  for (TensorSpec& spec : h3_tensors(opt.config, opt.layout)) {
    const std::uint64_t size = *byte_size(spec.dtype, spec.shape);
    Piece p = spec.name == "rope.inv_freq"
                  ? Piece::of_buffer(recompute_bytes(opt.config.rope))
                  : Piece::generated(size, [key = detail::name_key(opt.seed, spec.name),
                                            mask = detail::finite_mask(spec.dtype)](std::uint64_t at, std::span<std::byte> b) {
                      detail::fill_random(key, mask, at, b);
                    });
    out.push_back({std::move(spec), {std::move(p)}});
  }
  return out;
}

// Writes the fixture checkpoint into `dir` (shards plus index when opt.shards > 1).
inline Status write_h3_fixture(const std::string& dir, const H3FixtureOptions& opt) {
  Plan plan;  // a config h3_plan refuses (too many blocks) has no tensors: say why, write nothing
  FUSEKIT_TRY(h3_plan(opt.config, H3Layout::diffusers, H3Layout::native, plan));
  std::vector<OutputTensor> tensors = h3_fixture_tensors(opt);
  std::uint64_t total = 0;
  for (const auto& t : tensors) total += *byte_size(t.spec.dtype, t.spec.shape);
  ShardingOptions sharding;
  const std::uint64_t shards = std::max<std::uint64_t>(opt.shards, 1);
  sharding.max_shard_bytes = std::max<std::uint64_t>((total + shards - 1) / shards, 1);
  // Metadata as a conversion to this layout writes it (a native fixture carries the layout marker).
  return write_checkpoint(dir, std::move(tensors), output_metadata({{"format", "pt"}}, layout_name(opt.layout)), sharding,
                          {}, opt.progress);
}

}  // namespace fusekit::checkpoint
