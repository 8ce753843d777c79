// Tiny-config MiniMax-H3 checkpoints of random weights in the released dtypes, sharded with an
// index: mapped to native, every transform checked element by element against its
// definition, mapped back and compared bit for bit. Bad checkpoints: a clear error, no output.
#include <doctest/doctest.h>

#include "checkpoint/temp_dir.hpp"
#include "fusekit/checkpoint/h3_fixture.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"
#include "support/gpu.hpp"

#include <cstring>
#include <filesystem>
#include <string>

using namespace fusekit;
using namespace fusekit::checkpoint;
using fusekit::test::TempDir;

namespace {

// Raw bits of element (row, col) of a 2-D tensor (or element `row` of a 1-D one).
std::uint64_t bits(const TensorView& v, std::int64_t row, std::int64_t col = 0) {
  const std::size_t es = element_size(v.spec->dtype);
  const std::int64_t cols = v.spec->shape.size() > 1 ? v.spec->shape[1] : 1;
  std::uint64_t x = 0;
  std::memcpy(&x, v.bytes.data() + (row * cols + col) * es, es);
  return x;
}

TensorView must_find(const Checkpoint& c, const std::string& name) {
  TensorView v = c.find(name);
  REQUIRE_MESSAGE(v.spec != nullptr, "missing " << name);
  return v;
}

// Every element of native tensor `n` equals element f(row) of the other tensor, same column.
template <class RowMap>
bool rows_match(const TensorView& n, RowMap&& source_of_row) {
  const std::int64_t rows = n.spec->shape[0], cols = n.spec->shape.size() > 1 ? n.spec->shape[1] : 1;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto [src, src_row] = source_of_row(r);
    for (std::int64_t c = 0; c < cols; ++c)
      if (bits(n, r, c) != bits(src, src_row, c)) return false;
  }
  return true;
}

H3FixtureOptions tiny_fixture(H3Layout layout) {
  H3FixtureOptions opt;
  opt.config = H3Config::tiny();
  opt.layout = layout;
  opt.shards = 3;
  opt.seed = fusekit::test::fresh_seed();
  return opt;
}

// Writes the fixture into `path` and opens it.
void make_fixture(const std::string& path, const H3FixtureOptions& fx, Checkpoint& out) {
  REQUIRE(write_h3_fixture(path, fx).ok());
  REQUIRE(Checkpoint::open(path, out).ok());
}

Plan plan_for(const H3Config& c, H3Layout from, H3Layout to) {
  Plan p;
  REQUIRE(h3_plan(c, from, to, p).ok());
  return p;
}

// Converts `in` into `path` and opens the result.
void convert_into(const Checkpoint& in, const Plan& plan, const std::string& path, Checkpoint& out,
                  const ConvertOptions& opt = ConvertOptions{}) {
  REQUIRE(convert(in, plan, path, opt).ok());
  REQUIRE(Checkpoint::open(path, out).ok());
}

ConvertOptions small_shards() {
  ConvertOptions opt;
  opt.sharding.max_shard_bytes = 64 << 10;  // several output shards even at tiny size
  return opt;
}

}  // namespace

TEST_CASE("tiny H3: diffusers -> native -> diffusers, every transform element by element, bitwise back") {
  TempDir dir;
  const H3FixtureOptions fx = tiny_fixture(H3Layout::diffusers);
  CAPTURE(fx.seed);
  Checkpoint d;
  make_fixture(dir / "diffusers", fx, d);
  CHECK(d.shards().size() >= 2);
  CHECK(std::filesystem::exists(dir / "diffusers/model.safetensors.index.json"));
  CHECK(d.size() == 62);
  CHECK(must_find(d, "proj_in.weight").spec->dtype == TensorDType::F32);
  CHECK(must_find(d, "time_embedder.linear_2.bias").spec->dtype == TensorDType::F32);
  CHECK(must_find(d, "context_embedder.weight").spec->dtype == TensorDType::BF16);
  CHECK(must_find(d, "transformer_blocks.0.attn.to_q.weight").spec->dtype == TensorDType::BF16);

  const Plan to_native = plan_for(fx.config, H3Layout::diffusers, H3Layout::native);
  Checkpoint n;
  convert_into(d, to_native, dir / "native", n, small_shards());
  CHECK(n.size() == 54);
  CHECK(n.shards().size() >= 2);

  const H3Config& c = fx.config;
  const std::int64_t a = c.attention(), f = c.ffn;
  for (const auto& [np, dp] : std::vector<std::pair<std::string, std::string>>{
           {"blocks.0.", "transformer_blocks.0."}, {"blocks.1.", "transformer_blocks.1."},
           {"token_refiner.blocks.0.", "token_refiner.refiner_blocks.0."},
           {"token_refiner.blocks.1.", "token_refiner.refiner_blocks.1."}}) {
    CAPTURE(np);
    // qkv: native rows [q_all; k_all; v_all] are to_q, to_k, to_v stacked.
    TensorView qkv = must_find(n, np + "attn.qkv_proj.weight");
    TensorView q = must_find(d, dp + "attn.to_q.weight"), k = must_find(d, dp + "attn.to_k.weight"),
               v = must_find(d, dp + "attn.to_v.weight");
    CHECK(rows_match(qkv, [&](std::int64_t r) { return std::pair{r < a ? q : r < 2 * a ? k : v, r % a}; }));
    // fc1: native [gate; value] is diffusers [value; gate] with the halves swapped.
    TensorView fc1 = must_find(n, np + "mlp.fc1.weight"), ff = must_find(d, dp + "ff.net.0.proj.weight");
    CHECK(rows_match(fc1, [&](std::int64_t r) { return std::pair{ff, (r + f) % (2 * f)}; }));
    // Renames: identical elements under the new name.
    for (const auto& [nn, dn] : std::vector<std::pair<std::string, std::string>>{
             {"norm1.weight", "norm1.weight"}, {"attn.q_norm.weight", "attn.norm_q.weight"},
             {"attn.k_norm.weight", "attn.norm_k.weight"}, {"attn.out_proj.weight", "attn.to_out.0.weight"},
             {"mlp.fc2.weight", "ff.net.2.weight"}}) {
      TensorView x = must_find(n, np + nn), y = must_find(d, dp + dn);
      CHECK(x.spec->shape == y.spec->shape);
      CHECK(rows_match(x, [&](std::int64_t r) { return std::pair{y, r}; }));
    }
  }
  TensorView fo = must_find(n, "final_layer.video_out.weight");
  CHECK(fo.spec->dtype == TensorDType::F32);
  CHECK(rows_match(fo, [&](std::int64_t r) { return std::pair{must_find(d, "proj_out.weight"), r}; }));
  CHECK(rows_match(must_find(n, "blocks.1.adaln_proj.linear.bias"),
                   [&](std::int64_t r) { return std::pair{must_find(d, "transformer_blocks.1.adaln_proj.linear.bias"), r}; }));

  bool bitwise = false;
  REQUIRE(verify_inverse(d, n, to_native, bitwise).ok());
  CHECK(bitwise);

  Checkpoint b;
  convert_into(n, plan_for(fx.config, H3Layout::native, H3Layout::diffusers), dir / "back", b);
  std::string difference;
  CHECK_MESSAGE(same_tensors(d, b, &difference), difference);
}

TEST_CASE("verify_inverse notices a changed element") {
  TempDir dir;
  const H3FixtureOptions fx = tiny_fixture(H3Layout::diffusers);
  Checkpoint d;
  make_fixture(dir / "d", fx, d);
  const Plan plan = plan_for(fx.config, H3Layout::diffusers, H3Layout::native);
  // A native checkpoint whose fc1 of block 1 is right but for one flipped bit.
  std::vector<OutputTensor> tensors = lower_plan(d, plan);
  std::shared_ptr<std::vector<std::byte>> changed;
  for (auto& t : tensors)
    if (t.spec.name == "blocks.1.mlp.fc1.weight") {
      changed = std::make_shared<std::vector<std::byte>>();
      for (const auto& p : t.pieces) changed->insert(changed->end(), p.bytes.begin(), p.bytes.end());
      (*changed)[777] ^= std::byte{0x10};
      t.pieces = {Piece::of_buffer(changed)};
    }
  REQUIRE(changed);
  REQUIRE(write_checkpoint(dir / "n", std::move(tensors)).ok());
  Checkpoint n;
  REQUIRE(Checkpoint::open(dir / "n", n).ok());
  bool bitwise = true;
  std::string where;
  REQUIRE(verify_inverse(d, n, plan, bitwise, &where).ok());
  CHECK(!bitwise);
  CHECK(where == "transformer_blocks.1.ff.net.0.proj.weight");
}

TEST_CASE("tiny H3 original release: per-head QKV reordered, rope.inv_freq dropped and recomputed") {
  TempDir dir;
  const H3FixtureOptions fx = tiny_fixture(H3Layout::original);
  CAPTURE(fx.seed);
  Checkpoint o;
  make_fixture(dir / "original", fx, o);
  CHECK(o.size() == 55);

  Checkpoint n;
  convert_into(o, plan_for(fx.config, H3Layout::original, H3Layout::native), dir / "native", n);
  CHECK(n.size() == 54);
  CHECK(n.find("rope.inv_freq").spec == nullptr);

  const std::int64_t hd = fx.config.head_dim, a = fx.config.attention();
  for (const char* block : {"blocks.0.", "blocks.1.", "token_refiner.blocks.0.", "token_refiner.blocks.1."}) {
    CAPTURE(block);
    const std::string name = std::string(block) + "attn.qkv_proj.weight";
    TensorView src = must_find(o, name);
    // Native row part*A + head*D + d comes from original row (head*3 + part)*D + d.
    CHECK(rows_match(must_find(n, name), [&](std::int64_t r) {
      const std::int64_t part = r / a, head = (r % a) / hd, d = r % hd;
      return std::pair{src, (head * 3 + part) * hd + d};
    }));
  }

  Checkpoint b;
  convert_into(n, plan_for(fx.config, H3Layout::native, H3Layout::original), dir / "back", b);
  std::string difference;
  CHECK_MESSAGE(same_tensors(o, b, &difference), difference);
  TensorView inv = must_find(b, "rope.inv_freq");
  for (std::int64_t i = 0; i < fx.config.rope.count; ++i) {  // 1 / 10000^(2i/2n), straight from the definition
    float got;
    std::memcpy(&got, inv.bytes.data() + 4 * i, 4);
    CHECK(got == doctest::Approx(1.0 / std::pow(10000.0, double(2 * i) / double(2 * fx.config.rope.count))).epsilon(1e-6));
  }
}

TEST_CASE("measure_roundtrip fills the seed report's mapping fields") {
  TempDir dir;
  const H3FixtureOptions fx = tiny_fixture(H3Layout::diffusers);
  REQUIRE(write_h3_fixture(dir / "d", fx).ok());
  const Plan plan = plan_for(fx.config, H3Layout::diffusers, H3Layout::native);
  MappingReport r;
  REQUIRE(measure_roundtrip(dir / "d", plan, dir.path(), {}, r).ok());
  CHECK(r.checkpoint_tensors == 62);
  CHECK(r.native_tensors == 54);
  CHECK(r.unique_native_names == 54);
  CHECK(r.groups == 5);
  CHECK(r.roundtrip_bitwise);
  CHECK(r.map_seconds > 0);
  CHECK(r.inverse_seconds > 0);
  CHECK(r.to_json().dump().find("\"roundtrip_bitwise\":true") != std::string::npos);
}

TEST_CASE("checkpoints that do not match the plan: the first problem named, nothing written") {
  TempDir dir;
  H3FixtureOptions fx = tiny_fixture(H3Layout::diffusers);
  const Plan plan = plan_for(fx.config, H3Layout::diffusers, H3Layout::native);

  // Writes the fixture after `edit`, converts it, and returns the error.
  auto convert_edited = [&](const std::function<void(std::vector<OutputTensor>&)>& edit,
                            const H3FixtureOptions& opt, const Plan& p) {
    std::vector<OutputTensor> ts = h3_fixture_tensors(opt);
    edit(ts);
    std::filesystem::remove_all(dir / "in");
    REQUIRE(write_checkpoint(dir / "in", std::move(ts)).ok());
    Checkpoint in;
    REQUIRE(Checkpoint::open(dir / "in", in).ok());
    Status s = convert(in, p, dir / "out");
    CHECK(!std::filesystem::exists(dir / "out"));  // not even the directory
    CHECK(s.code() == Errc::bad_format);
    return s.message();
  };
  auto find = [](std::vector<OutputTensor>& ts, const std::string& name) -> OutputTensor& {
    for (auto& t : ts)
      if (t.spec.name == name) return t;
    FAIL("no tensor " << name);
    return ts[0];
  };

  SUBCASE("missing tensor") {
    CHECK(convert_edited([](auto& ts) { std::erase_if(ts, [](auto& t) { return t.spec.name == "transformer_blocks.1.attn.to_k.weight"; }); },
                         fx, plan) == "checkpoint does not match plan diffusers -> native: missing tensor "
                                      "transformer_blocks.1.attn.to_k.weight (group blocks.1)");
  }
  SUBCASE("unexpected tensor") {
    auto msg = convert_edited([&](auto& ts) {
      OutputTensor extra = find(ts, "norm_out.norm.weight");
      extra.spec.name = "extra.weight";
      ts.push_back(extra);
    }, fx, plan);
    CHECK(msg.find("unexpected tensor extra.weight (1 tensors the plan does not use)") != std::string::npos);
  }
  SUBCASE("wrong shape") {
    auto msg = convert_edited([&](auto& ts) {
      OutputTensor& t = find(ts, "transformer_blocks.0.attn.to_v.weight");
      t.spec.shape = {32, 128};  // same bytes, other shape
    }, fx, plan);
    CHECK(msg.find("tensor transformer_blocks.0.attn.to_v.weight BF16 [32, 128], plan expects "
                   "transformer_blocks.0.attn.to_v.weight BF16 [64, 64]") != std::string::npos);
  }
  SUBCASE("wrong dtype") {
    auto msg = convert_edited([&](auto& ts) {
      OutputTensor& t = find(ts, "proj_in.bias");  // F32 [64] -> BF16 [128]: same bytes
      t.spec.dtype = TensorDType::BF16;
      t.spec.shape = {128};
    }, fx, plan);
    CHECK(msg.find("tensor proj_in.bias BF16 [128], plan expects proj_in.bias F32 [64]") != std::string::npos);
  }
  SUBCASE("rope.inv_freq that is not the recomputation") {
    H3FixtureOptions ofx = tiny_fixture(H3Layout::original);
    ofx.config.rope.theta = 5000;
    auto msg = convert_edited([](auto&) {}, ofx, plan_for(H3Config::tiny(), H3Layout::original, H3Layout::native));
    CHECK(msg.find("rope.inv_freq[1]") != std::string::npos);
    CHECK(msg.find("refusing to drop it") != std::string::npos);
  }
  SUBCASE("a native checkpoint given as diffusers") {
    H3FixtureOptions nfx = tiny_fixture(H3Layout::native);
    auto msg = convert_edited([](auto&) {}, nfx, plan);
    CHECK(msg.find("missing tensor proj_in.weight (group top_level)") != std::string::npos);
  }
}
