// fusekit/checkpoint/h3_fixture.hpp: generate a MiniMax-H3 checkpoint of random weights in any
// layout, at any config (the tiny one for tests, full width with a few blocks for benchmarks
// and GPU examples).
//
// Values are a pure function of (seed, tensor name, byte offset), finite for the float types,
// and produced chunk by chunk while writing, so a multi-GB checkpoint needs no buffer of its
// size. rope.inv_freq holds its exact recomputation, so it round-trips bit for bit.
//
// Two kinds of values (FixtureValues): random bit patterns (every finite value: what the
// adapter's bit-for-bit tests want), or values spread like a trained model's weights (what a
// model's GEMMs multiply; random bit patterns are mostly tiny, half below 2^-63. The layer
// report's slowdowns came out in the same band on both: RESULTS.md, fifty-fifth session).
#pragma once

#include "fusekit/checkpoint/convert.hpp"
#include "fusekit/checkpoint/h3_preset.hpp"
#include "fusekit/core/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>

namespace fusekit::checkpoint {

enum class FixtureValues {
  random_bits,  // every finite bit pattern, |x| < 2
  weights,      // float tensors about normal, mean 0, deviation `stddev` (other dtypes: random bits)
};

struct H3FixtureOptions {
  H3Config config = H3Config::tiny();
  H3Layout layout = H3Layout::diffusers;
  std::size_t shards = 2;  // about this many files of equal size (more if one tensor is larger)
  std::uint64_t seed = 1;
  FixtureValues values = FixtureValues::random_bits;
  double stddev = 0.02;  // FixtureValues::weights: the usual initial scale of transformer weights; (0, 1]
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

// Fills bytes [offset, offset + out.size()) of a stream of `unit`-byte pieces (at most 8), piece
// k's bytes written by unit_bytes(k, to): a pure function of k, so any chunking, even one that
// starts or ends inside a piece, gives the same bytes.
template <class UnitBytes>
void fill_units(std::size_t unit, std::uint64_t offset, std::span<std::byte> out, UnitBytes&& unit_bytes) {
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t at = offset + i;
    const std::size_t skip = at % unit, n = std::min<std::size_t>(unit - skip, out.size() - i);
    std::byte whole[8];
    unit_bytes(at / unit, whole);
    std::memcpy(out.data() + i, whole + skip, n);
    i += n;
  }
}

// A tensor's random stream: word k is splitmix64(key + k), masked.
inline void fill_random(std::uint64_t key, std::uint64_t mask, std::uint64_t offset, std::span<std::byte> out) {
  fill_units(8, offset, out, [&](std::uint64_t k, std::byte* to) {
    const std::uint64_t word = splitmix64(key + k) & mask;
    std::memcpy(to, &word, 8);
  });
}

// Element e of a weight-like tensor: the sum of four 16-bit uniforms of splitmix64(key + e),
// centred and scaled to unit variance (Irwin-Hall: within 2 sqrt(3) of 0, close to normal and
// cheap enough for gigabytes), times `stddev`, rounded to nearest in the tensor's float type.
inline double weight_value(std::uint64_t key, std::uint64_t e, double stddev) {
  const std::uint64_t w = splitmix64(key + e);
  double sum = 0;
  for (int i = 0; i < 4; ++i) sum += (static_cast<double>((w >> (16 * i)) & 0xffff) + 0.5) / 65536.0;
  return (sum - 2.0) * std::sqrt(3.0) * stddev;
}
// A finite float rounded to nearest even in bfloat16, as bits: the one H3's weights take, done
// here because the host form of core/dtype.hpp's conversion doubled the time to write a 5.6 GB
// checkpoint (28 -> 59 s), which the layer report pays on the lent GPU machine.
inline std::uint16_t to_bf16_bits(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// The same in IEEE half (core/dtype.hpp's conversion: subnormals and ties as the hardware rounds).
inline std::uint16_t to_f16_bits(float x) {
  const fp16_t h = from_float<fp16_t>(x);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
// Bytes [offset, offset + out.size()) of a weight-like tensor of `dtype` (a float type).
inline void fill_weights(std::uint64_t key, TensorDType dtype, double stddev, std::uint64_t offset, std::span<std::byte> out) {
  fill_units(element_size(dtype), offset, out, [&](std::uint64_t e, std::byte* to) {
    const double v = weight_value(key, e, stddev);
    if (dtype == TensorDType::F64) {
      std::memcpy(to, &v, 8);
    } else if (dtype == TensorDType::F32) {
      const float f = static_cast<float>(v);
      std::memcpy(to, &f, 4);
    } else {
      const float f = static_cast<float>(v);
      const std::uint16_t h = dtype == TensorDType::BF16 ? to_bf16_bits(f) : to_f16_bits(f);
      std::memcpy(to, &h, 2);
    }
  });
}
inline bool is_float(TensorDType t) {
  return t == TensorDType::F16 || t == TensorDType::BF16 || t == TensorDType::F32 || t == TensorDType::F64;
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
    const std::uint64_t key = detail::name_key(opt.seed, spec.name);
    Piece p = spec.name == "rope.inv_freq" ? Piece::of_buffer(recompute_bytes(opt.config.rope))
              : opt.values == FixtureValues::weights && detail::is_float(spec.dtype)
                  ? Piece::generated(size, [key, dtype = spec.dtype, sd = opt.stddev](std::uint64_t at, std::span<std::byte> b) {
                      detail::fill_weights(key, dtype, sd, at, b);
                    })
                  : Piece::generated(size, [key, mask = detail::finite_mask(spec.dtype)](std::uint64_t at, std::span<std::byte> b) {
                      detail::fill_random(key, mask, at, b);
                    });
    out.push_back({std::move(spec), {std::move(p)}});
  }
  return out;
}

// Writes the fixture checkpoint into `dir` (shards plus index when opt.shards > 1).
inline Status write_h3_fixture(const std::string& dir, const H3FixtureOptions& opt) {
  if (!(opt.stddev > 0 && opt.stddev <= 1)) return {Errc::bad_argument, "fixture stddev must lie in (0, 1]"};
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
