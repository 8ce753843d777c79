// fusekit/checkpoint/h3_layout.hpp: which MiniMax-H3 layout a checkpoint on disk is in.
//
// diffusers renames every tensor, so its names say so; the original release and native share
// every name and shape but rope.inv_freq, which only the original release holds. A native
// checkpoint fusekit writes carries kLayoutKey = "native" in its `__metadata__`; one with none
// of these signs is refused rather than guessed (guessing native for an original release
// without rope.inv_freq would write wrong q/k/v: its QKV rows are interleaved per head).
#pragma once

#include "fusekit/checkpoint/convert.hpp"
#include "fusekit/checkpoint/h3_preset.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace fusekit::checkpoint {

namespace detail {

// Name prefixes only the diffusers layout uses, and those native and the original release share.
inline constexpr std::array<std::string_view, 9> kDiffusersPrefixes{
    "transformer_blocks.", "token_refiner.refiner_blocks.", "proj_in.", "audio_proj_in.", "context_embedder.",
    "time_embedder.linear_", "norm_out.", "proj_out.", "audio_proj_out."};
inline constexpr std::array<std::string_view, 7> kNativePrefixes{
    "blocks.", "token_refiner.blocks.", "video_patch_proj.", "audio_patch_proj.", "condition_proj.",
    "time_embedder.proj_", "final_layer."};

// The first tensor name (in shard order) with one of `prefixes`, or empty.
template <std::size_t N>
std::string first_with_prefix(const Checkpoint& c, const std::array<std::string_view, N>& prefixes) {
  for (const auto& v : c.views())
    for (auto p : prefixes)
      if (v.spec->name.starts_with(p)) return v.spec->name;
  return {};
}

}  // namespace detail

// The layout of the H3 checkpoint `c`: diffusers names -> diffusers; rope.inv_freq -> original;
// the native marker -> native. `claimed` (the caller's explicit source layout) is taken where the
// checkpoint cannot tell, and refused where the names or the marker say otherwise. Everything
// else (exact names, shapes, dtypes) is check_input's job once the plan is built.
inline Status detect_h3_layout(const Checkpoint& c, std::optional<H3Layout> claimed, H3Layout& out) {
  const std::string diffusers_name = detail::first_with_prefix(c, detail::kDiffusersPrefixes);
  const std::string native_name = detail::first_with_prefix(c, detail::kNativePrefixes);
  const bool rope = c.find("rope.inv_freq").spec != nullptr;
  std::optional<std::string> marker;
  for (const auto& [key, value] : c.metadata())
    if (key == kLayoutKey) marker = value;

  if (marker && *marker != "native")
    return {Errc::bad_format, std::string("its __metadata__ has ") + kLayoutKey + " = \"" + *marker +
                                  "\"; fusekit writes only \"native\" there"};
  if (!diffusers_name.empty() && (!native_name.empty() || rope))
    return {Errc::bad_format, "it mixes layouts: " + diffusers_name + " is a diffusers name, " +
                                  (rope ? std::string("rope.inv_freq") : native_name) + " a native/original one"};
  std::optional<H3Layout> named;  // what the checkpoint itself says
  std::string why;
  if (!diffusers_name.empty()) named = H3Layout::diffusers, why = "it has diffusers names (" + diffusers_name + ")";
  else if (rope) named = H3Layout::original, why = "it holds rope.inv_freq, which only the original release has";
  if (marker) {
    if (named) return {Errc::bad_format, std::string("its __metadata__ marks it native (") + kLayoutKey + "), but " + why};
    named = H3Layout::native, why = std::string("its __metadata__ marks it native (") + kLayoutKey + ")";
  }
  if (claimed) {
    if (named && *named != *claimed)
      return {Errc::bad_argument, std::string("the checkpoint was given as ") + layout_name(*claimed) + ", but " + why +
                                      ": it is " + layout_name(*named)};
    out = *claimed;
    return {};
  }
  if (named) {
    out = *named;
    return {};
  }
  if (!native_name.empty())
    return {Errc::bad_format, "cannot tell whether it is native or the original release: it has their names (" +
                                  native_name + "), but neither rope.inv_freq (only the original release holds it) nor " +
                                  "the " + kLayoutKey + " marker fusekit writes into native checkpoints; name the " +
                                  "source layout (fusekit-convert --from native|original)"};
  return {Errc::bad_format, "not a MiniMax-H3 checkpoint: none of its " + std::to_string(c.size()) +
                                " tensors has a name of the diffusers, native or original layout"};
}

}  // namespace fusekit::checkpoint
