// CPU tests of fusekit-layer-report (issue #7): the command line, the mapping section on the
// tiny fixture config, the report's JSON against seed 000's sections and field names (a copy of
// the seed is in data/), and bad input (missing key, wrong shape, block out of range, ...)
// stopping with a clear error before anything is written.
#include <doctest/doctest.h>

#include "checkpoint/temp_dir.hpp"
#include "support/gpu.hpp"

#include "report_input.hpp"
#include "report_json.hpp"
#include "report_options.hpp"

#include "fusekit/checkpoint/h3_fixture.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace fusekit;
using namespace fusekit::checkpoint;
using namespace fusekit::layer_report;
using fusekit::test::TempDir;

namespace {

Status parse(std::vector<const char*> args, Options& opt) {
  args.insert(args.begin(), "fusekit-layer-report");
  return parse_options(static_cast<int>(args.size()), args.data(), opt);
}

H3FixtureOptions tiny_diffusers() {
  H3FixtureOptions fx;
  fx.config = H3Config::tiny();
  fx.layout = H3Layout::diffusers;
  fx.shards = 2;
  fx.seed = fusekit::test::fresh_seed();
  return fx;
}

Options tiny_options(const std::string& checkpoint) {
  Options opt;
  opt.checkpoint = checkpoint;
  opt.widths = H3Config::tiny();
  return opt;
}

// The fixture's tensors with `edit` applied, written as a sharded checkpoint into `dir`.
template <class Edit> void write_edited_fixture(const std::string& dir, Edit&& edit) {
  std::vector<OutputTensor> tensors = h3_fixture_tensors(tiny_diffusers());
  edit(tensors);
  ShardingOptions sharding;
  sharding.max_shard_bytes = 64 * 1024;  // several shards and an index
  REQUIRE(write_checkpoint(dir, std::move(tensors), {{"format", "pt"}}, sharding).ok());
}

std::vector<std::string> tree(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) names.push_back(e.path().string());
  std::sort(names.begin(), names.end());
  return names;
}

// prepare() fails with `code` and a message holding every one of `needles`; nothing written.
void expect_rejected(const TempDir& dir, const Options& opt, Errc code, const std::vector<std::string>& needles) {
  const auto before = tree(dir.path());
  Prepared p;
  const Status s = prepare(opt, p);
  CAPTURE(s.to_string());
  CHECK(s.code() == code);
  for (const auto& n : needles) CHECK_MESSAGE(s.message().find(n) != std::string::npos, "no \"" << n << "\"");
  CHECK(tree(dir.path()) == before);
}

nlohmann::json seed_000() {
  std::ifstream in(FUSEKIT_SEED_000);
  REQUIRE_MESSAGE(in.good(), "cannot open " FUSEKIT_SEED_000);
  return nlohmann::json::parse(in);
}

std::vector<std::string> keys(const nlohmann::ordered_json& o) {
  std::vector<std::string> k;
  for (const auto& [key, value] : o.items()) k.push_back(key);
  return k;
}
std::vector<std::string> keys(const nlohmann::json& o, const std::vector<std::string>& order_of) {
  // nlohmann::json sorts keys; take the seed's order from the file text instead.
  std::vector<std::string> k;
  for (const auto& key : order_of)
    if (o.contains(key)) k.push_back(key);
  return k;
}

// The kind of a JSON value as the schema sees it (integers and floats are both numbers).
std::string kind(const nlohmann::ordered_json& v) {
  if (v.is_number()) return "number";
  return v.type_name();
}

}  // namespace

TEST_CASE("options: defaults, lists, and a clear error for each bad argument") {
  Options opt;
  REQUIRE(parse({"--checkpoint", "/x"}, opt).ok());
  CHECK(opt.tokens == std::vector<std::int64_t>{70, 925});
  CHECK_FALSE(opt.blocks.has_value());
  CHECK(opt.json_path == "layer_report.json");
  CHECK(opt.widths.hidden == 5376);

  REQUIRE(parse({"--checkpoint", "/x", "--blocks", "0,2,49", "--tokens", "1,4096", "--config", "tiny", "--json", "r.json",
                 "--replays", "3", "--calls-per-replay", "5", "--seed", "42", "--mapping-only"},
                opt)
              .ok());
  CHECK(*opt.blocks == std::vector<std::int64_t>{0, 2, 49});
  CHECK(opt.tokens == std::vector<std::int64_t>{1, 4096});
  CHECK(opt.widths.hidden == 64);
  CHECK(opt.replays == 3);
  CHECK(opt.calls_per_replay == 5);
  CHECK(opt.seed == 42);
  CHECK(opt.mapping_only);
  // Every 64-bit seed, as fresh seeds are drawn (and written to the report), can be given back.
  REQUIRE(parse({"--checkpoint", "/x", "--seed", "18446744073709551615", "--replays", "2147483647"}, opt).ok());
  CHECK(opt.seed == 18446744073709551615ull);
  CHECK(opt.replays == 2147483647);

  const std::vector<std::pair<std::vector<const char*>, std::string>> bad = {
      {{}, "--checkpoint DIR is required"},
      {{"--checkpoint"}, "--checkpoint needs a value"},
      {{"--checkpoint", "/x", "--tokens", "70,,925"}, "--tokens takes a comma-separated list of positive integers"},
      {{"--checkpoint", "/x", "--tokens", "0"}, "positive integers"},
      {{"--checkpoint", "/x", "--blocks", "-1"}, "--blocks takes a comma-separated list of non-negative integers"},
      {{"--checkpoint", "/x", "--blocks", "1x"}, "non-negative integers"},
      {{"--checkpoint", "/x", "--config", "huge"}, "--config takes full or tiny"},
      {{"--checkpoint", "/x", "--replays", "0"}, "--replays takes an integer from 1 to 2147483647, got \"0\""},
      // Past int (or int64): refused, not wrapped to 0 by a cast or clamped by strtoll.
      {{"--checkpoint", "/x", "--replays", "4294967296"}, "--replays takes an integer from 1 to 2147483647"},
      {{"--checkpoint", "/x", "--calls-per-replay", "2147483648"}, "--calls-per-replay takes an integer from 1 to 2147483647"},
      {{"--checkpoint", "/x", "--seed", "18446744073709551616"}, "--seed takes an integer from 0 to 18446744073709551615"},
      {{"--checkpoint", "/x", "--seed", "-1"}, "--seed takes an integer"},
      {{"--checkpoint", "/x", "--blocks", "0,9223372036854775808"}, "--blocks takes a comma-separated list"},
      {{"--checkpoint", "/x", "--tokens", "+5"}, "--tokens takes a comma-separated list"},
      {{"--checkpoint", "/x", "--frobnicate"}, "unknown argument \"--frobnicate\""},
  };
  for (const auto& [args, message] : bad) {
    Options o;
    const Status s = parse(args, o);
    CAPTURE(message);
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find(message) != std::string::npos);
  }
}

TEST_CASE("mapping section on the tiny fixture config: counts, bitwise round trip, native checkpoint left") {
  TempDir dir;
  REQUIRE(write_h3_fixture(dir / "ckpt", tiny_diffusers()).ok());
  Options opt = tiny_options(dir / "ckpt");
  Prepared p;
  const Status s = prepare(opt, p);
  REQUIRE_MESSAGE(s.ok(), s.to_string());
  CHECK(p.config.main_blocks == 2);
  CHECK(p.config.refiner_blocks == 2);
  CHECK(p.blocks == std::vector<std::int64_t>{0, 1});  // default: the first and the last

  MappingReport r;
  REQUIRE(measure_mapping(opt, p, dir / "work", r).ok());
  // 18 top-level tensors; per refiner block 10 diffusers -> 8 native; per main block 12 -> 10.
  CHECK(r.checkpoint_tensors == 18 + 2 * 10 + 2 * 12);
  CHECK(r.native_tensors == 18 + 2 * 8 + 2 * 10);
  CHECK(r.unique_native_names == r.native_tensors);
  CHECK(r.groups == 1 + 2 + 2);
  CHECK(r.roundtrip_bitwise);
  CHECK(r.map_seconds > 0);
  CHECK(r.inverse_seconds > 0);
  CHECK_FALSE(std::filesystem::exists(dir / "work/back"));
  Checkpoint native;
  REQUIRE(Checkpoint::open(native_dir(dir / "work"), native).ok());
  CHECK(native.size() == r.native_tensors);
  CHECK(native.find("blocks.1.mlp.fc1.weight").spec != nullptr);

  // The same plan at the full config gives seed 000's own counts.
  Plan full;
  REQUIRE(h3_plan(H3Config::full(), H3Layout::diffusers, H3Layout::native, full).ok());
  const MappingReport counts = plan_counts(full);
  const nlohmann::json seed = seed_000()["mapping"];
  CHECK(counts.checkpoint_tensors == seed["checkpoint_tensors"].get<std::size_t>());
  CHECK(counts.native_tensors == seed["native_tensors"].get<std::size_t>());
  CHECK(counts.unique_native_names == seed["unique_native_names"].get<std::size_t>());
  CHECK(counts.groups == seed["groups"].get<std::size_t>());

  // Blocks given explicitly are sorted and deduplicated.
  opt.blocks = std::vector<std::int64_t>{1, 0, 1};
  REQUIRE(prepare(opt, p).ok());
  CHECK(p.blocks == std::vector<std::int64_t>{0, 1});
}

TEST_CASE("report JSON has seed 000's sections and field names, with the same value kinds") {
  const nlohmann::json seed = seed_000();
  // nlohmann::json orders keys; the seed's own order, as written in the file, is this:
  const std::vector<std::string> seed_layer_order = {
      "block", "tokens", "linear", "repeatable", "rel_err_vs_fp64", "torch_rel_err_vs_fp64", "fused_equals_separate",
      "fc1_equals_diffusers_swapped", "adapter_ms", "torch_ms", "slowdown"};
  const std::vector<std::string> seed_mapping_order = {"checkpoint_tensors", "native_tensors", "unique_native_names",
                                                       "groups", "roundtrip_bitwise", "map_seconds", "inverse_seconds"};
  REQUIRE(seed["layers"].size() == 24);
  REQUIRE(keys(seed["layers"][0], seed_layer_order) == seed_layer_order);
  REQUIRE(keys(seed["mapping"], seed_mapping_order) == seed_mapping_order);
  REQUIRE(seed["layers"][0].size() == seed_layer_order.size());
  REQUIRE(seed["mapping"].size() == seed_mapping_order.size());

  std::vector<LayerResult> layers;
  for (const char* linear : kLinears) {
    LayerResult r;
    r.block = 2;
    r.tokens = 925;
    r.linear = linear;
    r.repeatable = true;
    r.rel_err = 1.6e-3;
    r.baseline_rel_err = 1.7e-3;
    if (r.linear == "qkv_proj") r.fused_equals_separate = true;
    if (r.linear == "fc1") r.fc1_equals_diffusers_swapped = true;
    r.fusekit_ms = 0.2;
    r.baseline_ms = 0.25;
    layers.push_back(r);
  }
  MappingReport mapping;
  mapping.checkpoint_tensors = 74;
  RunInfo run;
  run.device = "NVIDIA H200 (sm_90, 132 SMs)";
  const nlohmann::ordered_json doc = report_json(run, mapping, layers, {});

  for (const char* section : {"device", "mapping", "layers"}) CHECK_MESSAGE(doc.contains(section), section);
  CHECK(doc["device"] == run.device);
  // torch's version is replaced by the CUDA and driver versions.
  CHECK_FALSE(doc.contains("torch"));
  for (const char* field : {"cuda_runtime", "cuda_driver", "driver"}) CHECK_MESSAGE(doc[field].is_string(), field);
  CHECK(keys(doc["mapping"]) == seed_mapping_order);
  for (const auto& key : seed_mapping_order) CHECK_MESSAGE(kind(doc["mapping"][key]) == kind(seed["mapping"][key]), key);

  REQUIRE(doc["layers"].size() == 4);
  for (const auto& entry : doc["layers"]) {
    CHECK(keys(entry) == seed_layer_order);
    // The seed entry of the same linear: same kinds, nulls included (fused_equals_separate is
    // null except for qkv_proj, fc1_equals_diffusers_swapped except for fc1).
    for (const auto& s : seed["layers"]) {
      if (s["linear"] != entry["linear"]) continue;
      for (const auto& key : seed_layer_order)
        CHECK_MESSAGE(kind(entry[key]) == kind(nlohmann::ordered_json::parse(s[key].dump())),
                      entry["linear"].get<std::string>() << "." << key);
      break;
    }
  }
  CHECK(doc["layers"][1]["slowdown"].get<double>() == doctest::Approx(0.8));

  // A value that was not measured is null, never a number.
  layers[0].fusekit_ms = NAN;
  const nlohmann::ordered_json partial = report_json(run, mapping, layers, {"run stopped: x"});
  CHECK(partial["layers"][0]["adapter_ms"].is_null());
  CHECK(partial["layers"][0]["slowdown"].is_null());
  CHECK(partial["problems"][0] == "run stopped: x");
  CHECK(layer_table(layers).find("qkv_proj") != std::string::npos);
}

TEST_CASE("bad input: a clear error naming the problem, before anything is written or any GPU work") {
  TempDir dir;
  SUBCASE("a missing key") {
    write_edited_fixture(dir / "ckpt", [](std::vector<OutputTensor>& t) {
      std::erase_if(t, [](const OutputTensor& x) { return x.spec.name == "transformer_blocks.1.attn.to_k.weight"; });
    });
    expect_rejected(dir, tiny_options(dir / "ckpt"), Errc::bad_format,
                    {"missing tensor transformer_blocks.1.attn.to_k.weight", "group blocks.1"});
  }
  SUBCASE("a wrong shape") {
    write_edited_fixture(dir / "ckpt", [](std::vector<OutputTensor>& t) {
      for (auto& x : t)
        if (x.spec.name == "transformer_blocks.0.ff.net.2.weight") {
          x.spec.shape = {64, 64};  // the plan expects [hidden, ffn] = [64, 128]
          x.pieces = {Piece::of_buffer(std::make_shared<std::vector<std::byte>>(64 * 64 * 2))};
        }
    });
    expect_rejected(dir, tiny_options(dir / "ckpt"), Errc::bad_format,
                    {"transformer_blocks.0.ff.net.2.weight BF16 [64, 64]", "plan expects", "[64, 128]"});
  }
  SUBCASE("a wrong dtype") {
    write_edited_fixture(dir / "ckpt", [](std::vector<OutputTensor>& t) {
      for (auto& x : t)
        if (x.spec.name == "transformer_blocks.1.norm2.weight") {
          x.spec.dtype = TensorDType::F16;
        }
    });
    expect_rejected(dir, tiny_options(dir / "ckpt"), Errc::bad_format, {"transformer_blocks.1.norm2.weight F16"});
  }
  SUBCASE("a block out of range") {
    REQUIRE(write_h3_fixture(dir / "ckpt", tiny_diffusers()).ok());
    Options opt = tiny_options(dir / "ckpt");
    opt.blocks = std::vector<std::int64_t>{0, 2};
    expect_rejected(dir, opt, Errc::bad_argument, {"block 2 is out of range", "has 2 main blocks (0..1)"});
  }
  SUBCASE("the full model's widths on a tiny checkpoint") {
    REQUIRE(write_h3_fixture(dir / "ckpt", tiny_diffusers()).ok());
    Options opt = tiny_options(dir / "ckpt");
    opt.widths = H3Config::full();
    expect_rejected(dir, opt, Errc::bad_format, {"plan expects", "5376"});
  }
  SUBCASE("a native checkpoint instead of the diffusers one") {
    H3FixtureOptions fx = tiny_diffusers();
    fx.layout = H3Layout::native;
    REQUIRE(write_h3_fixture(dir / "ckpt", fx).ok());
    expect_rejected(dir, tiny_options(dir / "ckpt"), Errc::bad_format, {"native layout", "pass the diffusers checkpoint"});
  }
  SUBCASE("a block index past any config in a tensor name: refused before the plan is sized by it") {
    for (const std::string index : {"1000000000", "9223372036854775807", "99999999999999999999", "4096"}) {
      CAPTURE(index);
      std::filesystem::remove_all(dir / "ckpt");
      const std::string name = "transformer_blocks." + index + ".norm1.weight";
      write_edited_fixture(dir / "ckpt", [&](std::vector<OutputTensor>& t) {
        OutputTensor extra = t.back();
        extra.spec.name = name;
        t.push_back(extra);
      });
      expect_rejected(dir, tiny_options(dir / "ckpt"), Errc::bad_format,
                      {"tensor " + name + ": block index out of range (at most 4096 blocks, 0..4095, are accepted)"});
    }
  }
  SUBCASE("no checkpoint there") {
    expect_rejected(dir, tiny_options(dir / "nothing"), Errc::io_error, {"nothing"});
  }
}
