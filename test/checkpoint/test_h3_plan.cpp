// The MiniMax-H3 plans from the config alone: exact counts, groups and every shape of the full
// model, checked against a table written out independently from the model doc.
#include <doctest/doctest.h>

#include "fusekit/checkpoint/h3_preset.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"

#include <map>
#include <string>

using namespace fusekit;
using namespace fusekit::checkpoint;

namespace {

using ShapeTable = std::map<std::string, Shape>;

// shared/docs/minimax_h3.md, "Checkpoint layouts", with its numbers spelled out.
ShapeTable full_native_table() {
  ShapeTable m;
  auto block = [&](const std::string& p, bool main) {
    m[p + "norm1.weight"] = {5376};
    m[p + "norm2.weight"] = {5376};
    m[p + "attn.qkv_proj.weight"] = {21504, 5376};
    m[p + "attn.q_norm.weight"] = {128};
    m[p + "attn.k_norm.weight"] = {128};
    m[p + "attn.out_proj.weight"] = {5376, 7168};
    m[p + "mlp.fc1.weight"] = {28672, 5376};
    m[p + "mlp.fc2.weight"] = {5376, 14336};
    if (main) {
      m[p + "adaln_proj.linear.weight"] = {96768, 2688};
      m[p + "adaln_proj.linear.bias"] = {96768};
    }
  };
  for (int i = 0; i < 50; ++i) block("blocks." + std::to_string(i) + ".", true);
  for (int i = 0; i < 2; ++i) block("token_refiner.blocks." + std::to_string(i) + ".", false);
  m["video_patch_proj.weight"] = {5376, 96};
  m["video_patch_proj.bias"] = {5376};
  m["audio_patch_proj.weight"] = {5376, 32};
  m["audio_patch_proj.bias"] = {5376};
  m["condition_proj.weight"] = {5376, 5120};
  m["condition_proj.bias"] = {5376};
  m["time_embedder.proj_in.weight"] = {5376, 256};
  m["time_embedder.proj_in.bias"] = {5376};
  m["time_embedder.proj_out.weight"] = {2688, 5376};
  m["time_embedder.proj_out.bias"] = {2688};
  m["token_refiner.final_norm.weight"] = {5376};
  m["final_layer.norm.weight"] = {5376};
  m["final_layer.adaln_proj.linear.weight"] = {10752, 2688};
  m["final_layer.adaln_proj.linear.bias"] = {10752};
  m["final_layer.video_out.weight"] = {96, 5376};
  m["final_layer.video_out.bias"] = {96};
  m["final_layer.audio_out.weight"] = {32, 5376};
  m["final_layer.audio_out.bias"] = {32};
  return m;
}

ShapeTable full_diffusers_table() {
  ShapeTable m;
  auto block = [&](const std::string& p, bool main) {
    m[p + "norm1.weight"] = {5376};
    m[p + "norm2.weight"] = {5376};
    for (const char* part : {"to_q", "to_k", "to_v"}) m[p + "attn." + part + ".weight"] = {7168, 5376};
    m[p + "attn.norm_q.weight"] = {128};
    m[p + "attn.norm_k.weight"] = {128};
    m[p + "attn.to_out.0.weight"] = {5376, 7168};
    m[p + "ff.net.0.proj.weight"] = {28672, 5376};
    m[p + "ff.net.2.weight"] = {5376, 14336};
    if (main) {
      m[p + "adaln_proj.linear.weight"] = {96768, 2688};
      m[p + "adaln_proj.linear.bias"] = {96768};
    }
  };
  for (int i = 0; i < 50; ++i) block("transformer_blocks." + std::to_string(i) + ".", true);
  for (int i = 0; i < 2; ++i) block("token_refiner.refiner_blocks." + std::to_string(i) + ".", false);
  const std::map<std::string, std::string> top = {
      {"video_patch_proj", "proj_in"}, {"audio_patch_proj", "audio_proj_in"}, {"condition_proj", "context_embedder"},
      {"time_embedder.proj_in", "time_embedder.linear_1"}, {"time_embedder.proj_out", "time_embedder.linear_2"},
      {"final_layer.adaln_proj.linear", "norm_out.linear"}, {"final_layer.video_out", "proj_out"},
      {"final_layer.audio_out", "audio_proj_out"}};
  const ShapeTable native = full_native_table();
  for (const auto& [n, d] : top) {
    m[d + ".weight"] = native.at(n + ".weight");
    m[d + ".bias"] = native.at(n + ".bias");
  }
  m["token_refiner.final_norm.weight"] = {5376};
  m["norm_out.norm.weight"] = {5376};
  return m;
}

ShapeTable table_of(const std::vector<const TensorSpec*>& specs) {
  ShapeTable m;
  for (const TensorSpec* t : specs) m[t->name] = t->shape;
  return m;
}

bool is_fp32_name(const std::string& n) {
  for (const char* p : {"video_patch_proj.", "audio_patch_proj.", "time_embedder.", "final_layer.video_out.",
                        "final_layer.audio_out.", "proj_in.", "audio_proj_in.", "proj_out.", "audio_proj_out.", "rope."})
    if (n.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("H3 full plan diffusers -> native: 638 -> 534 tensors, 53 groups, every shape and dtype") {
  Plan plan;
  REQUIRE(h3_plan(H3Config::full(), H3Layout::diffusers, H3Layout::native, plan).ok());
  const MappingReport counts = plan_counts(plan);
  CHECK(counts.checkpoint_tensors == 638);
  CHECK(counts.native_tensors == 534);
  CHECK(counts.unique_native_names == 534);
  CHECK(counts.groups == 53);
  CHECK(table_of(plan.outputs()) == full_native_table());
  CHECK(table_of(plan.inputs()) == full_diffusers_table());
  for (const TensorSpec* t : plan.inputs()) {
    CAPTURE(t->name);
    CHECK(t->dtype == (is_fp32_name(t->name) ? TensorDType::F32 : TensorDType::BF16));
  }
  for (const TensorSpec* t : plan.outputs()) {
    CAPTURE(t->name);
    CHECK(t->dtype == (is_fp32_name(t->name) ? TensorDType::F32 : TensorDType::BF16));
  }
  // Groups: the top level (18), two refiner blocks (8 each), fifty main blocks (10 each).
  REQUIRE(plan.groups.size() == 53);
  auto outputs_of = [](const Group& g) {
    std::size_t n = 0;
    for (const auto& r : g.rules) n += r.outputs.size();
    return n;
  };
  CHECK(plan.groups[0].name == "top_level");
  CHECK(outputs_of(plan.groups[0]) == 18);
  CHECK(plan.groups[1].name == "token_refiner.blocks.0");
  CHECK(outputs_of(plan.groups[2]) == 8);
  CHECK(plan.groups[3].name == "blocks.0");
  CHECK(plan.groups[52].name == "blocks.49");
  for (std::size_t i = 3; i < 53; ++i) CHECK(outputs_of(plan.groups[i]) == 10);
}

TEST_CASE("H3 full plan native -> diffusers is the exact inverse") {
  Plan forward, back;
  REQUIRE(h3_plan(H3Config::full(), H3Layout::diffusers, H3Layout::native, forward).ok());
  REQUIRE(h3_plan(H3Config::full(), H3Layout::native, H3Layout::diffusers, back).ok());
  CHECK(back.inputs().size() == 534);
  CHECK(back.outputs().size() == 638);
  CHECK(table_of(back.inputs()) == full_native_table());
  CHECK(table_of(back.outputs()) == full_diffusers_table());
  const Plan again = inverse(back);
  CHECK(describe(again) == describe(forward));
}

TEST_CASE("H3 original release plan: per-head interleaved QKV and rope.inv_freq, 535 -> 534") {
  Plan plan;
  REQUIRE(h3_plan(H3Config::full(), H3Layout::original, H3Layout::native, plan).ok());
  CHECK(plan.inputs().size() == 535);
  CHECK(plan.outputs().size() == 534);
  CHECK(table_of(plan.outputs()) == full_native_table());
  ShapeTable original = full_native_table();
  original["rope.inv_freq"] = {16};
  CHECK(table_of(plan.inputs()) == original);
  std::size_t reorders = 0;
  for (const auto& g : plan.groups)
    for (const auto& r : g.rules)
      if (r.transform == Transform::heads_to_parts) {
        ++reorders;
        CHECK(r.heads == 56);
        CHECK(r.parts == 3);
      }
  CHECK(reorders == 52);
}

TEST_CASE("H3 tiny plan and dry-run description") {
  Plan plan;
  REQUIRE(h3_plan(H3Config::tiny(), H3Layout::diffusers, H3Layout::native, plan).ok());
  CHECK(plan.inputs().size() == 2 * 12 + 2 * 10 + 18);
  CHECK(plan.outputs().size() == 2 * 10 + 2 * 8 + 18);
  CHECK(plan.groups.size() == 5);
  const std::string text = describe(plan);
  CHECK(text.find("plan diffusers -> native: 62 -> 54 tensors in 5 groups") == 0);
  CHECK(text.find("blocks.1  concat_rows  transformer_blocks.1.attn.to_q.weight BF16 [64, 64], "
                  "transformer_blocks.1.attn.to_k.weight BF16 [64, 64], transformer_blocks.1.attn.to_v.weight BF16 "
                  "[64, 64] -> blocks.1.attn.qkv_proj.weight BF16 [192, 64]") != std::string::npos);
  CHECK(text.find("swap_row_halves  transformer_blocks.0.ff.net.0.proj.weight BF16 [256, 64] -> "
                  "blocks.0.mlp.fc1.weight BF16 [256, 64]") != std::string::npos);
}

TEST_CASE("plan checks catch inconsistent rules") {
  Plan plan;
  REQUIRE(h3_plan(H3Config::tiny(), H3Layout::diffusers, H3Layout::native, plan).ok());
  SUBCASE("split parts that do not add up") {
    for (auto& r : plan.groups[3].rules)
      if (r.transform == Transform::concat_rows) r.inputs[1].shape[0] -= 1;
    Status s = check_plan(plan);
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find("do not add up") != std::string::npos);
  }
  SUBCASE("a name made twice") {
    plan.groups[4].rules[0].outputs[0].name = plan.groups[3].rules[0].outputs[0].name;
    CHECK(check_plan(plan).message().find("is made twice") != std::string::npos);
  }
  SUBCASE("a rename that changes the dtype") {
    plan.groups[0].rules[0].outputs[0].dtype = TensorDType::F16;
    CHECK(check_plan(plan).message().find("differ in dtype or shape") != std::string::npos);
  }
  SUBCASE("no plan between two non-native layouts") {
    Plan p;
    CHECK(h3_plan(H3Config::tiny(), H3Layout::diffusers, H3Layout::original, p).code() == Errc::bad_argument);
  }
}
