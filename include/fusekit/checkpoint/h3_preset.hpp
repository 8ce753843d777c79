// fusekit/checkpoint/h3_preset.hpp: MiniMax-H3's checkpoint layouts and the plans between them.
//
// Three layouts (shared/docs/minimax_h3.md, "Checkpoint layouts"):
//   diffusers: the diffusers port, 638 tensors at full size (q, k, v separate; fc1 as [value; gate]);
//   native:    what fusekit's kernels read, 534 tensors in 53 groups (qkv as [q_all; k_all; v_all],
//              fc1 as [gate; value]);
//   original:  the raw release: native names, fused QKV rows interleaved per head, plus rope.inv_freq.
// Plans exist diffusers <-> native and original <-> native; each is built from the config alone.
#pragma once

#include "fusekit/checkpoint/plan.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace fusekit::checkpoint {

struct H3Config {
  std::int64_t hidden = 5376;
  std::int64_t heads = 56, head_dim = 128;
  std::int64_t ffn = 14336;
  std::int64_t main_blocks = 50, refiner_blocks = 2;
  std::int64_t text_dim = 5120;
  std::int64_t time_freq_dim = 256, time_hidden = 5376, time_embed_dim = 2688;
  std::int64_t video_patch_dim = 96, audio_channels = 32;
  std::int64_t modulation_tables = 3;  // one adaLN table per modality (video, text, audio)
  RopeInvFreq rope{10000.0, 16};

  std::int64_t attention() const { return heads * head_dim; }

  static H3Config full() { return {}; }
  // The fixture config of the model doc; sizes it leaves out (patch dims) keep their full
  // values, and rope keeps 4 frequencies so 3 axes x 2 x 4 fit a 32-wide head.
  static H3Config tiny() {
    H3Config c;
    c.hidden = 64;
    c.heads = 2;
    c.head_dim = 32;
    c.ffn = 128;
    c.main_blocks = 2;
    c.refiner_blocks = 2;
    c.text_dim = 48;
    c.time_freq_dim = 16;
    c.time_hidden = 64;
    c.time_embed_dim = 32;
    c.rope = {10000.0, 4};
    return c;
  }
};

enum class H3Layout { diffusers, native, original };

inline const char* layout_name(H3Layout l) {
  return l == H3Layout::diffusers ? "diffusers" : l == H3Layout::native ? "native" : "original";
}

namespace detail {

// fp32 for these native prefixes, bf16 for everything else (the released dtypes).
inline TensorDType h3_dtype(std::string_view native_name) {
  constexpr std::array<std::string_view, 5> fp32_prefixes{"video_patch_proj.", "audio_patch_proj.", "time_embedder.",
                                                          "final_layer.video_out.", "final_layer.audio_out."};
  for (auto p : fp32_prefixes)
    if (native_name.starts_with(p)) return TensorDType::F32;
  return TensorDType::BF16;
}

// Builds the native-side rules of one layout pair; `other` maps a native name to its name
// in the other layout.
class H3PlanBuilder {
 public:
  H3PlanBuilder(const H3Config& c, H3Layout other) : c_(c), other_(other) {}

  Plan build() {
    Plan p{layout_name(other_), "native", {}};
    p.groups.push_back(top_level());
    for (std::int64_t i = 0; i < c_.refiner_blocks; ++i) p.groups.push_back(block(i, false));
    for (std::int64_t i = 0; i < c_.main_blocks; ++i) p.groups.push_back(block(i, true));
    return p;
  }

 private:
  TensorSpec native(const std::string& name, Shape shape) const { return {name, h3_dtype(name), std::move(shape)}; }

  // A native tensor stored under another name (or the same one) in the other layout.
  Rule rename(const std::string& native_name, const std::string& other_name, Shape shape) const {
    TensorSpec n = native(native_name, shape);
    TensorSpec o = n;
    o.name = other_name;
    return Rule::of(Transform::rename, {o}, {n});
  }
  // Same name in both layouts.
  Rule keep(const std::string& name, Shape shape) const { return rename(name, name, std::move(shape)); }
  bool diffusers() const { return other_ == H3Layout::diffusers; }

  void linear(Group& g, const std::string& native_prefix, const std::string& diffusers_prefix, std::int64_t out,
              std::int64_t in) const {
    const std::string other_prefix = diffusers() ? diffusers_prefix : native_prefix;
    g.rules.push_back(rename(native_prefix + ".weight", other_prefix + ".weight", {out, in}));
    g.rules.push_back(rename(native_prefix + ".bias", other_prefix + ".bias", {out}));
  }

  Group top_level() const {
    Group g{"top_level", {}};
    const auto h = c_.hidden;
    linear(g, "video_patch_proj", "proj_in", h, c_.video_patch_dim);
    linear(g, "audio_patch_proj", "audio_proj_in", h, c_.audio_channels);
    linear(g, "condition_proj", "context_embedder", h, c_.text_dim);
    linear(g, "time_embedder.proj_in", "time_embedder.linear_1", c_.time_hidden, c_.time_freq_dim);
    linear(g, "time_embedder.proj_out", "time_embedder.linear_2", c_.time_embed_dim, c_.time_hidden);
    g.rules.push_back(keep("token_refiner.final_norm.weight", {h}));
    g.rules.push_back(rename("final_layer.norm.weight", diffusers() ? "norm_out.norm.weight" : "final_layer.norm.weight", {h}));
    linear(g, "final_layer.adaln_proj.linear", "norm_out.linear", 2 * h, c_.time_embed_dim);
    linear(g, "final_layer.video_out", "proj_out", c_.video_patch_dim, h);
    linear(g, "final_layer.audio_out", "audio_proj_out", c_.audio_channels, h);
    if (other_ == H3Layout::original) {
      Rule drop = Rule::of(Transform::drop, {{"rope.inv_freq", TensorDType::F32, {c_.rope.count}}}, {});
      drop.recipe = c_.rope;
      g.rules.push_back(std::move(drop));
    }
    return g;
  }

  Group block(std::int64_t i, bool main) const {
    const std::string idx = std::to_string(i);
    const std::string n = (main ? "blocks." : "token_refiner.blocks.") + idx + ".";
    const std::string d = diffusers() ? (main ? "transformer_blocks." : "token_refiner.refiner_blocks.") + idx + "." : n;
    const auto h = c_.hidden, a = c_.attention();
    Group g{n.substr(0, n.size() - 1), {}};
    g.rules.push_back(rename(n + "norm1.weight", d + "norm1.weight", {h}));
    g.rules.push_back(rename(n + "norm2.weight", d + "norm2.weight", {h}));

    TensorSpec qkv = native(n + "attn.qkv_proj.weight", {3 * a, h});
    if (diffusers()) {
      Rule r = Rule::of(Transform::concat_rows, {}, {qkv});
      for (const char* part : {"to_q", "to_k", "to_v"}) r.inputs.push_back({d + "attn." + part + ".weight", qkv.dtype, {a, h}});
      g.rules.push_back(std::move(r));
    } else {
      Rule r = Rule::of(Transform::heads_to_parts, {qkv}, {qkv});
      r.heads = c_.heads;
      r.parts = 3;  // q, k, v
      g.rules.push_back(std::move(r));
    }
    g.rules.push_back(rename(n + "attn.q_norm.weight", d + (diffusers() ? "attn.norm_q.weight" : "attn.q_norm.weight"), {c_.head_dim}));
    g.rules.push_back(rename(n + "attn.k_norm.weight", d + (diffusers() ? "attn.norm_k.weight" : "attn.k_norm.weight"), {c_.head_dim}));
    g.rules.push_back(rename(n + "attn.out_proj.weight", d + (diffusers() ? "attn.to_out.0.weight" : "attn.out_proj.weight"), {h, a}));

    TensorSpec fc1 = native(n + "mlp.fc1.weight", {2 * c_.ffn, h});
    if (diffusers()) {
      TensorSpec value_gate = fc1;
      value_gate.name = d + "ff.net.0.proj.weight";
      g.rules.push_back(Rule::of(Transform::swap_row_halves, {value_gate}, {fc1}));
    } else {
      g.rules.push_back(keep(fc1.name, fc1.shape));
    }
    g.rules.push_back(rename(n + "mlp.fc2.weight", d + (diffusers() ? "ff.net.2.weight" : "mlp.fc2.weight"), {h, c_.ffn}));
    if (main) {
      const std::int64_t table = 6 * c_.modulation_tables * h;
      g.rules.push_back(rename(n + "adaln_proj.linear.weight", d + "adaln_proj.linear.weight", {table, c_.time_embed_dim}));
      g.rules.push_back(rename(n + "adaln_proj.linear.bias", d + "adaln_proj.linear.bias", {table}));
    }
    return g;
  }

  const H3Config& c_;
  H3Layout other_;
};

}  // namespace detail

// More blocks than any config is refused before a plan is built: a plan holds a group per block,
// and block counts come from user input (options, indices in tensor names).
inline constexpr std::int64_t kMaxH3Blocks = 4096;

// The plan from layout `from` to layout `to`; one of them is native.
inline Status h3_plan(const H3Config& config, H3Layout from, H3Layout to, Plan& out) {
  for (auto [what, n] : {std::pair{"main", config.main_blocks}, std::pair{"refiner", config.refiner_blocks}})
    if (n < 0 || n > kMaxH3Blocks)
      return {Errc::bad_argument, std::string("h3_plan: ") + std::to_string(n) + " " + what + " blocks; at most " +
                                      std::to_string(kMaxH3Blocks) + " are accepted"};
  if (from == to) return {Errc::bad_argument, std::string("h3_plan: the checkpoint is already ") + layout_name(to)};
  if ((from == H3Layout::native) == (to == H3Layout::native))
    return {Errc::bad_argument, std::string("h3_plan: no plan ") + layout_name(from) + " -> " + layout_name(to) +
                                    " (one side must be native; convert through native)"};
  const H3Layout other = from == H3Layout::native ? to : from;
  Plan p = detail::H3PlanBuilder(config, other).build();
  out = from == H3Layout::native ? inverse(p) : std::move(p);
  return check_plan(out);
}

// The tensors a checkpoint of `layout` holds, in plan order.
inline std::vector<TensorSpec> h3_tensors(const H3Config& config, H3Layout layout) {
  Plan p;
  const H3Layout other = layout == H3Layout::native ? H3Layout::diffusers : layout;
  if (!h3_plan(config, other, H3Layout::native, p).ok()) return {};
  std::vector<TensorSpec> specs;
  for (const TensorSpec* t : layout == H3Layout::native ? p.outputs() : p.inputs()) specs.push_back(*t);
  return specs;
}

}  // namespace fusekit::checkpoint
