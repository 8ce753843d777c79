// Tiny-config MiniMax-H3 checkpoints of random weights in the released dtypes, sharded with an
// index: mapped to native, every transform checked element by element against its
// definition, mapped back and compared bit for bit. Bad checkpoints: a clear error, no output.
#include <doctest/doctest.h>

#include "checkpoint/temp_dir.hpp"
#include "convert_cli.hpp"
#include "fusekit/checkpoint/h3_fixture.hpp"
#include "fusekit/checkpoint/h3_layout.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"
#include "support/gpu.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>
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

// fusekit-convert with `args`: the exit status; what it printed in `out` and `err`.
int run_convert_cli(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::vector<const char*> argv{"fusekit-convert"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream o, e;
  const int rc = fusekit::convert_cli::run(static_cast<int>(argv.size()), argv.data(), o, e);
  out = o.str();
  err = e.str();
  return rc;
}

// The tiny original-release fixture without rope.inv_freq, as some exports ship it.
void write_original_without_rope(const std::string& path) {
  std::vector<OutputTensor> ts = h3_fixture_tensors(tiny_fixture(H3Layout::original));
  std::erase_if(ts, [](const OutputTensor& t) { return t.spec.name == "rope.inv_freq"; });
  REQUIRE(write_checkpoint(path, std::move(ts), {{"format", "pt"}}).ok());
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
  SUBCASE("rope.inv_freq one ulp off the recomputation (dropping it would lose that bit)") {
    H3FixtureOptions ofx = tiny_fixture(H3Layout::original);
    auto msg = convert_edited([&](auto& ts) {
      auto bytes = std::make_shared<std::vector<std::byte>>(*recompute_bytes(ofx.config.rope));
      std::uint32_t word;
      std::memcpy(&word, bytes->data() + 4 * 2, 4);
      ++word;  // element 2, next float up
      std::memcpy(bytes->data() + 4 * 2, &word, 4);
      find(ts, "rope.inv_freq").pieces = {Piece::of_buffer(bytes)};
    }, ofx, plan_for(H3Config::tiny(), H3Layout::original, H3Layout::native));
    CHECK(msg.find("rope.inv_freq[2] = 0.0100000007 (0x3C23D70B) is not the recomputed value 0.00999999978 "
                   "(0x3C23D70A)") != std::string::npos);  // the first differing index, both values exactly
  }
  SUBCASE("a native checkpoint given as diffusers") {
    H3FixtureOptions nfx = tiny_fixture(H3Layout::native);
    auto msg = convert_edited([](auto&) {}, nfx, plan);
    CHECK(msg.find("missing tensor proj_in.weight (group top_level)") != std::string::npos);
  }
}

TEST_CASE("rope.inv_freq: recomputed as torch's fp32 formula with a correctly rounded power") {
  volatile std::int64_t n75 = 75;  // read at run time: the compiler would fold a constant pow exactly
  // theta 10000, n 75, i 32: glibc's powf is an ulp low (1 / it is 0x1.41ec84p-6).
  CHECK(RopeInvFreq{10000.0, n75}.value(32) == 0x1.41ec86p-6f);
  for (double theta : {10000.0, 500000.0})
    for (std::int64_t n : {4, 16, 64, 75}) {
      const RopeInvFreq r{theta, n};
      for (std::int64_t i = 0; i < n; ++i) {  // the same steps with an 80-bit power
        const float e = static_cast<float>(2 * i) / static_cast<float>(2 * n);
        const float want = 1.0f / static_cast<float>(std::pow(static_cast<long double>(static_cast<float>(theta)),
                                                              static_cast<long double>(e)));
        CHECK(r.value(i) == want);
      }
    }
}

TEST_CASE("layout detection: diffusers names, rope.inv_freq, the native marker; refused where it cannot tell") {
  TempDir dir;
  auto detect = [&](const std::string& path, std::optional<H3Layout> claimed, H3Layout& out) {
    Checkpoint c;
    REQUIRE(Checkpoint::open(path, c).ok());
    return detect_h3_layout(c, claimed, out);
  };
  H3Layout got = H3Layout::diffusers;
  for (H3Layout layout : {H3Layout::diffusers, H3Layout::native, H3Layout::original}) {
    CAPTURE(layout_name(layout));
    REQUIRE(write_h3_fixture(dir / layout_name(layout), tiny_fixture(layout)).ok());
    REQUIRE(detect(dir / layout_name(layout), std::nullopt, got).ok());
    CHECK(got == layout);
  }
  SUBCASE("a native checkpoint written by convert carries the marker") {
    Checkpoint d, n;
    REQUIRE(Checkpoint::open(dir / "diffusers", d).ok());
    convert_into(d, plan_for(H3Config::tiny(), H3Layout::diffusers, H3Layout::native), dir / "n", n);
    CHECK(n.metadata() == Metadata{{"format", "pt"}, {kLayoutKey, "native"}});
    REQUIRE(detect_h3_layout(n, std::nullopt, got).ok());
    CHECK(got == H3Layout::native);
    const Status s = detect_h3_layout(n, H3Layout::original, got);  // contradicted by the marker
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find("given as original, but its __metadata__ marks it native") != std::string::npos);
  }
  SUBCASE("native names with neither rope.inv_freq nor the marker") {
    write_original_without_rope(dir / "norope");
    const Status s = detect(dir / "norope", std::nullopt, got);
    CHECK(s.code() == Errc::bad_format);
    CHECK(s.message().find("cannot tell whether it is native or the original release") != std::string::npos);
    CHECK(s.message().find("--from native|original") != std::string::npos);
    REQUIRE(detect(dir / "norope", H3Layout::original, got).ok());  // the caller's word where names cannot tell
    CHECK(got == H3Layout::original);
  }
  SUBCASE("a claim the names contradict") {
    const Status s = detect(dir / "original", H3Layout::native, got);
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find("given as native, but it holds rope.inv_freq") != std::string::npos);
    CHECK(detect(dir / "diffusers", H3Layout::native, got).message().find("it has diffusers names (") != std::string::npos);
  }
  SUBCASE("not an H3 checkpoint, or a marker fusekit does not write") {
    std::mt19937_64 rng(fusekit::test::fresh_seed());
    std::vector<OutputTensor> other{{{"encoder.layer.0.weight", TensorDType::F32, {2}},
                                     {Piece::of_buffer(std::make_shared<std::vector<std::byte>>(8))}}};
    REQUIRE(write_safetensors_file(dir / "other.safetensors", other).ok());
    CHECK(detect(dir / "other.safetensors", std::nullopt, got).message() ==
          "not a MiniMax-H3 checkpoint: none of its 1 tensors has a name of the diffusers, native or original layout");
    REQUIRE(write_safetensors_file(dir / "marked.safetensors", other, {{kLayoutKey, "original"}}).ok());
    CHECK(detect(dir / "marked.safetensors", std::nullopt, got).message().find("fusekit writes only \"native\"") !=
          std::string::npos);
  }
}

TEST_CASE("fusekit-convert: an original release without rope.inv_freq is refused, not taken for native") {
  TempDir dir;
  write_original_without_rope(dir / "norope");
  std::string out, err;
  // Taken for native, it would be split as [q; k; v] while its rows are interleaved per head.
  CHECK(run_convert_cli({"--to", "diffusers", dir / "norope", dir / "out", "--config", "tiny", "--verify"}, out, err) == 1);
  CHECK(err.find(dir / "norope" + ": cannot tell whether it is native or the original release") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "out"));
  // Named explicitly: as original it lacks rope.inv_freq; as native it converts (the caller's word).
  CHECK(run_convert_cli({"--to", "native", dir / "norope", dir / "out", "--config", "tiny", "--from", "original"}, out, err) == 1);
  CHECK(err.find("missing tensor rope.inv_freq") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "out"));
  CHECK(run_convert_cli({"--to", "diffusers", dir / "norope", dir / "out", "--config", "tiny", "--from", "native"}, out, err) == 0);

  // A native checkpoint fusekit-convert wrote is recognised by its marker.
  REQUIRE(write_h3_fixture(dir / "d", tiny_fixture(H3Layout::diffusers)).ok());
  REQUIRE(run_convert_cli({"--to", "native", dir / "d", dir / "n", "--config", "tiny"}, out, err) == 0);
  CHECK(run_convert_cli({"--to", "diffusers", dir / "n", dir / "back", "--config", "tiny", "--verify"}, out, err) == 0);
  CHECK(out.find("bit for bit: yes") != std::string::npos);

  // Not an H3 checkpoint at all: said so (it used to be "the checkpoint is already native").
  std::vector<OutputTensor> other{{{"w", TensorDType::U8, {4}}, {Piece::of_buffer(std::make_shared<std::vector<std::byte>>(4))}}};
  REQUIRE(write_safetensors_file(dir / "other.safetensors", other).ok());
  CHECK(run_convert_cli({"--to", "native", dir / "other.safetensors", dir / "o2"}, out, err) == 1);
  CHECK(err.find("not a MiniMax-H3 checkpoint") != std::string::npos);
}

TEST_CASE("fusekit-convert: IN equal to OUT is refused before anything is written") {
  TempDir dir;
  REQUIRE(write_h3_fixture(dir / "d", tiny_fixture(H3Layout::diffusers)).ok());  // shards + index
  std::filesystem::create_directory_symlink(dir / "d", dir / "link");
  const auto before = fusekit::test::TempDir::entries_of(dir / "d");
  std::string out, err;
  for (const std::string& target : {dir / "d", dir / "link", dir / "d/"}) {
    CAPTURE(target);
    CHECK(run_convert_cli({"--to", "native", dir / "d", target, "--config", "tiny"}, out, err) == 1);
    CHECK(err.find("output directory " + target + " holds the input") != std::string::npos);
  }
  CHECK(run_convert_cli({"--to", "native", dir / "d/model.safetensors.index.json", dir / "d", "--config", "tiny"}, out,
                        err) == 1);
  CHECK(fusekit::test::TempDir::entries_of(dir / "d") == before);  // the index is still there
  Checkpoint d;
  CHECK(Checkpoint::open(dir / "d", d).ok());
  // The round trip's work directories must not hold the input either (WORK/back is the input here).
  std::filesystem::create_directory(dir / "work");
  std::filesystem::create_directory_symlink(dir / "d", dir / "work/back");
  MappingReport r;
  const Status s = measure_roundtrip(dir / "d", plan_for(H3Config::tiny(), H3Layout::diffusers, H3Layout::native),
                                     dir / "work", {}, r);
  CHECK(s.code() == Errc::bad_argument);
  CHECK(fusekit::test::TempDir::entries_of(dir / "work") == std::vector<std::string>{"back"});
}

TEST_CASE("fusekit-convert: the input's metadata carried over; the native marker added, and dropped on the way back") {
  TempDir dir;
  ShardingOptions sharding;
  sharding.max_shard_bytes = 64 << 10;
  const Metadata md{{"format", "pt"}, {"producer", "test \xE2\x82\xAC"}};
  REQUIRE(write_checkpoint(dir / "d", h3_fixture_tensors(tiny_fixture(H3Layout::diffusers)), md, sharding).ok());
  std::string out, err;
  REQUIRE(run_convert_cli({"--to", "native", dir / "d", dir / "n", "--config", "tiny", "--shard-mb", "1"}, out, err) == 0);
  REQUIRE(run_convert_cli({"--to", "diffusers", dir / "n", dir / "b", "--config", "tiny"}, out, err) == 0);
  Checkpoint d, n, b;
  REQUIRE(Checkpoint::open(dir / "d", d).ok());
  REQUIRE(Checkpoint::open(dir / "n", n).ok());
  REQUIRE(Checkpoint::open(dir / "b", b).ok());
  auto sorted = [](Metadata m) {  // the reader gives keys in JSON-object order (sorted), not file order
    std::sort(m.begin(), m.end());
    return m;
  };
  Metadata marked = md;
  marked.emplace_back(kLayoutKey, "native");
  REQUIRE(n.shards().size() == 1);
  CHECK(sorted(n.metadata()) == sorted(marked));
  CHECK(sorted(b.metadata()) == sorted(md));
  std::string difference;
  CHECK_MESSAGE(same_tensors(d, b, &difference), difference);
}

TEST_CASE("fusekit-convert: a dry run needs no input; numbers out of range are refused, not wrapped") {
  std::string out, err;
  for (const auto& [to, plan] : std::vector<std::pair<std::string, std::string>>{
           {"diffusers", "plan native -> diffusers"}, {"original", "plan native -> original"}, {"native", "plan diffusers -> native"}}) {
    CAPTURE(to);
    CHECK(run_convert_cli({"--to", to, "--dry-run", "--config", "tiny"}, out, err) == 0);
    CHECK(out.starts_with(plan));
  }
  CHECK(run_convert_cli({"--to", "native", "--dry-run", "--from", "native"}, out, err) == 1);
  CHECK(err.find("already native") != std::string::npos);

  CHECK(run_convert_cli({"--to", "native", "--dry-run", "--config", "tiny", "--shard-mb", "18446744073709"}, out, err) == 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--shard-mb", "18446744073710"}, "--shard-mb takes an integer from 0 to 18446744073709, got \"18446744073710\""},
      {{"--shard-mb", "99999999999999999999999"}, "--shard-mb takes an integer"},
      {{"--shard-mb", "-1"}, "--shard-mb takes an integer"},
      {{"--shard-mb", "0"}, "--shard-mb must be positive"},
      {{"--blocks", "1000000000"}, "--blocks takes an integer from 0 to 4096"},
      {{"--refiner-blocks", "+2"}, "--refiner-blocks takes an integer"},
      {{"--seed", "18446744073709551616"}, "--seed takes an integer from 0 to 18446744073709551615"},
  };
  for (const auto& [args, message] : bad) {
    CAPTURE(message);
    std::vector<std::string> all{"--to", "native", "--dry-run"};
    all.insert(all.end(), args.begin(), args.end());
    CHECK(run_convert_cli(all, out, err) == 2);
    CHECK(err.find(message) != std::string::npos);
  }
  Plan p;
  H3Config big = H3Config::tiny();
  big.main_blocks = kMaxH3Blocks + 1;
  CHECK(h3_plan(big, H3Layout::diffusers, H3Layout::native, p).message().find("4097 main blocks; at most 4096") !=
        std::string::npos);
}

TEST_CASE("fixture values: weight-like tensors are about normal at the asked deviation, the same bytes in any chunking") {
  TempDir dir;
  H3FixtureOptions fx = tiny_fixture(H3Layout::diffusers);
  fx.values = FixtureValues::weights;
  CAPTURE(fx.seed);
  Checkpoint d;
  make_fixture(dir / "weights", fx, d);
  // A bf16 and an f32 tensor: every element finite, within the sum of uniforms' range (2 sqrt(3)
  // deviations, one bf16 rounding up), mean and deviation near 0 and fx.stddev.
  for (const std::string name : {"transformer_blocks.0.attn.to_q.weight", "proj_in.weight"}) {
    CAPTURE(name);
    const TensorView v = must_find(d, name);
    const bool bf16 = v.spec->dtype == TensorDType::BF16;
    const std::size_t n = v.bytes.size() / (bf16 ? 2 : 4);
    REQUIRE(n > 1000);
    double sum = 0, squares = 0, largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      float x;
      if (bf16) {
        std::uint16_t h;
        std::memcpy(&h, v.bytes.data() + 2 * i, 2);
        x = std::bit_cast<float>(std::uint32_t{h} << 16);
      } else {
        std::memcpy(&x, v.bytes.data() + 4 * i, 4);
      }
      REQUIRE(std::isfinite(x));
      sum += x, squares += double(x) * x, largest = std::max(largest, double(std::fabs(x)));
    }
    const double mean = sum / n, sd = std::sqrt(squares / n - mean * mean);
    CHECK(std::fabs(mean) < 5 * fx.stddev / std::sqrt(double(n)));
    CHECK(sd == doctest::Approx(fx.stddev).epsilon(0.05));
    CHECK(largest <= 2 * std::sqrt(3.0) * fx.stddev * (1 + 1.0 / 256));
  }
  // The bytes are a function of the offset alone: any chunk, even one starting inside an element.
  for (TensorDType t : {TensorDType::BF16, TensorDType::F16, TensorDType::F32, TensorDType::F64}) {
    CAPTURE(int(t));
    std::vector<std::byte> whole(64), parts(64);
    detail::fill_weights(7, t, 0.02, 100, whole);
    detail::fill_weights(7, t, 0.02, 100, std::span(parts).first(3));
    detail::fill_weights(7, t, 0.02, 103, std::span(parts).subspan(3));
    CHECK(whole == parts);
  }
  // Half and bfloat16 rounding: nearest even, subnormal halves kept.
  CHECK(detail::to_bf16_bits(1.0f) == 0x3f80);
  CHECK(detail::to_bf16_bits(std::bit_cast<float>(0x3f808000u)) == 0x3f80);  // a tie: to even
  CHECK(detail::to_bf16_bits(std::bit_cast<float>(0x3f818000u)) == 0x3f82);
  CHECK(detail::to_bf16_bits(-0.02f) == 0xbca4);
  CHECK(detail::to_f16_bits(1.0f) == 0x3c00);
  CHECK(detail::to_f16_bits(-2.5f) == 0xc100);
  CHECK(detail::to_f16_bits(0.02f) == 0x251f);
  CHECK(detail::to_f16_bits(std::ldexp(1.0f, -24)) == 0x0001);  // the smallest subnormal
  CHECK(detail::to_f16_bits(std::ldexp(3.0f, -16)) == 0x0300);
  CHECK(detail::to_f16_bits(65504.0f) == 0x7bff);
  // Out-of-range deviations are refused before anything is written.
  fx.stddev = 0;
  CHECK(write_h3_fixture(dir / "refused", fx).code() == Errc::bad_argument);
  CHECK_FALSE(std::filesystem::exists(dir / "refused"));
  // The command line: --values weights gives the same bytes; anything else is refused.
  std::string out, err;
  CHECK(run_convert_cli({"--generate", "diffusers", dir / "cli", "--config", "tiny", "--values", "weights", "--seed",
                         std::to_string(fx.seed)}, out, err) == 0);
  CHECK(out.find("weight-like") != std::string::npos);
  Checkpoint c;
  REQUIRE(Checkpoint::open(dir / "cli", c).ok());
  const TensorView a = must_find(d, "transformer_blocks.0.attn.to_q.weight"), b = must_find(c, "transformer_blocks.0.attn.to_q.weight");
  CHECK(std::equal(a.bytes.begin(), a.bytes.end(), b.bytes.begin(), b.bytes.end()));
  CHECK(run_convert_cli({"--generate", "diffusers", dir / "bad", "--values", "normal"}, out, err) == 2);
  CHECK(err.find("--values takes bits or weights") != std::string::npos);
}
