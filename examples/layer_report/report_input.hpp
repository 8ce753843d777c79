// Everything fusekit-layer-report checks and maps before it touches a GPU: the checkpoint is
// opened and checked against the diffusers -> native plan (a missing key or a wrong shape or
// dtype is an error naming the tensor), the requested blocks are checked against the blocks the
// checkpoint holds, then the mapping section is measured. Host-only (the CPU tests include it).
#pragma once

#include "report_options.hpp"

#include "fusekit/checkpoint/convert.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fusekit::layer_report {

struct Prepared {
  checkpoint::Checkpoint input;  // diffusers layout, checked against `plan`
  checkpoint::H3Config config;   // the option's widths with the checkpoint's block counts
  checkpoint::Plan plan;         // diffusers -> native
  std::vector<std::int64_t> blocks;
};

namespace detail {

// 1 + the largest i of the keys "<prefix><i>.", 0 when there are none. An index past
// kMaxH3Blocks is refused naming its tensor: the count sizes the plan, and a name is user input.
inline Status count_blocks(const checkpoint::Checkpoint& c, std::string_view prefix, const std::string& path,
                           std::int64_t& count) {
  count = 0;
  for (const auto& v : c.views()) {
    const std::string& name = v.spec->name;
    if (!name.starts_with(prefix)) continue;
    std::size_t at = prefix.size();
    std::int64_t i = 0;
    bool too_large = false;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9') {
      i = i * 10 + (name[at++] - '0');
      if (i > checkpoint::kMaxH3Blocks) too_large = true, i = checkpoint::kMaxH3Blocks + 1;  // no overflow
    }
    if (at == prefix.size() || at >= name.size() || name[at] != '.') continue;  // not "<prefix><digits>."
    if (too_large || i >= checkpoint::kMaxH3Blocks)
      return {Errc::bad_format, path + ": tensor " + name + ": block index out of range (at most " +
                                    std::to_string(checkpoint::kMaxH3Blocks) + " blocks, 0.." +
                                    std::to_string(checkpoint::kMaxH3Blocks - 1) + ", are accepted)"};
    count = std::max<std::int64_t>(count, i + 1);
  }
  return {};
}

}  // namespace detail

// Opens and checks; writes nothing. On error `out` is left as it was.
inline Status prepare(const Options& opt, Prepared& out) {
  Prepared p;
  FUSEKIT_TRY(checkpoint::Checkpoint::open(opt.checkpoint, p.input));
  p.config = opt.widths;
  FUSEKIT_TRY(detail::count_blocks(p.input, "transformer_blocks.", opt.checkpoint, p.config.main_blocks));
  FUSEKIT_TRY(detail::count_blocks(p.input, "token_refiner.refiner_blocks.", opt.checkpoint, p.config.refiner_blocks));
  if (p.config.main_blocks == 0) {
    std::int64_t native_blocks = 0;
    const bool native = detail::count_blocks(p.input, "blocks.", opt.checkpoint, native_blocks).ok() && native_blocks > 0;
    return {Errc::bad_format, opt.checkpoint + " has no transformer_blocks.* tensors: " +
                                  (native ? "it is in native layout; pass the diffusers checkpoint it came from"
                                          : "not a MiniMax-H3 checkpoint in diffusers layout")};
  }
  FUSEKIT_TRY(checkpoint::h3_plan(p.config, checkpoint::H3Layout::diffusers, checkpoint::H3Layout::native, p.plan));
  FUSEKIT_TRY(checkpoint::check_input(p.input, p.plan));

  const std::int64_t last = p.config.main_blocks - 1;
  p.blocks = opt.blocks ? *opt.blocks : std::vector<std::int64_t>{0, last};
  std::sort(p.blocks.begin(), p.blocks.end());
  p.blocks.erase(std::unique(p.blocks.begin(), p.blocks.end()), p.blocks.end());
  for (std::int64_t b : p.blocks)
    if (b > last)
      return {Errc::bad_argument, "block " + std::to_string(b) + " is out of range: " + opt.checkpoint + " has " +
                                      std::to_string(p.config.main_blocks) + " main blocks (0.." +
                                      std::to_string(last) + ")"};
  out = std::move(p);
  return {};
}

// The native checkpoint the mapping writes under the work directory.
inline std::string native_dir(const std::string& work_dir) { return work_dir + "/native"; }

// The seed's mapping section: diffusers -> native into `work_dir`/native, back into
// `work_dir`/back, compared bit for bit; the copy mapped back is deleted afterwards (only the
// native one is read later).
inline Status measure_mapping(const Options& opt, const Prepared& p, const std::string& work_dir,
                              checkpoint::MappingReport& report) {
  FUSEKIT_TRY(checkpoint::measure_roundtrip(opt.checkpoint, p.plan, work_dir, {}, report));
  std::error_code ec;
  std::filesystem::remove_all(work_dir + "/back", ec);
  return {};
}

}  // namespace fusekit::layer_report
