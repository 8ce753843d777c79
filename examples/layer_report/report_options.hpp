// The command line of fusekit-layer-report. Host-only (the CPU tests include it).
#pragma once

#include "fusekit/checkpoint/h3_preset.hpp"
#include "fusekit/core/status.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fusekit::layer_report {

inline constexpr const char* kUsage =
    "usage: fusekit-layer-report --checkpoint DIR [--blocks 0,2] [--tokens 70,925] [--json OUT]\n"
    "                            [--config full|tiny] [--work DIR] [--keep-work] [--mapping-only]\n"
    "                            [--replays N] [--calls-per-replay N] [--seed S]\n"
    "DIR: a MiniMax-H3 checkpoint in diffusers layout (sharded safetensors + index, or one file).\n"
    "Defaults: blocks 0 and the last, tokens 70 and 925, JSON to layer_report.json, widths of the\n"
    "full model (the block counts are read from the checkpoint), a temporary work directory for\n"
    "the native checkpoint (removed at exit), 15 replays of 20 calls each, a fresh input seed.\n";

struct Options {
  std::string checkpoint;
  std::string json_path = "layer_report.json";
  std::string work_dir;  // empty: a fresh temporary directory, removed at exit
  bool keep_work = false;
  bool mapping_only = false;  // stop after the mapping section (no GPU needed)
  std::optional<std::vector<std::int64_t>> blocks;  // absent: 0 and the last block
  std::vector<std::int64_t> tokens{70, 925};
  checkpoint::H3Config widths = checkpoint::H3Config::full();  // block counts come from the checkpoint
  int replays = 15;           // timed CUDA-graph replays per implementation
  int calls_per_replay = 20;  // back-to-back calls captured in one graph
  std::uint64_t seed = 0;     // 0: a fresh seed, written to the report
};

namespace detail {

inline Status option_error(const std::string& msg) { return {Errc::bad_argument, msg}; }

// Decimal digits only, at most `max`; nullopt otherwise (strtoll clamps what does not fit, and
// accepts signs and spaces).
inline std::optional<std::uint64_t> parse_uint(const std::string& text, std::uint64_t max) {
  std::uint64_t n = 0;  // from_chars: digits only, and out of range is an error, not a clamp
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || n > max) return std::nullopt;
  return n;
}

// "0,2,49" -> {0, 2, 49}; every entry a non-negative integer (positive when `positive`) that
// fits an int64.
inline Status parse_list(const std::string& option, const std::string& text, bool positive,
                         std::vector<std::int64_t>& out) {
  out.clear();
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const auto v = parse_uint(text.substr(at, comma - at), std::numeric_limits<std::int64_t>::max());
    if (!v || *v < (positive ? 1u : 0u))
      return option_error(option + " takes a comma-separated list of " + (positive ? "positive" : "non-negative") +
                          " integers, got \"" + text + "\"");
    out.push_back(static_cast<std::int64_t>(*v));
    at = comma + 1;
  }
  return {};
}

// An integer in [min, max]; what lies outside is refused, not clamped or wrapped by a cast.
inline Status parse_count(const std::string& option, const std::string& text, std::uint64_t min, std::uint64_t max,
                          std::uint64_t& out) {
  const auto v = parse_uint(text, max);
  if (!v || *v < min)
    return option_error(option + " takes an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                        ", got \"" + text + "\"");
  out = *v;
  return {};
}

}  // namespace detail

inline Status parse_options(int argc, const char* const* argv, Options& out) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool takes_value = arg == "--checkpoint" || arg == "--blocks" || arg == "--tokens" || arg == "--json" ||
                             arg == "--config" || arg == "--work" || arg == "--replays" ||
                             arg == "--calls-per-replay" || arg == "--seed";
    if (takes_value && i + 1 >= argc) return detail::option_error(arg + " needs a value");
    const std::string value = takes_value ? argv[++i] : "";
    std::uint64_t n = 0;
    constexpr std::uint64_t kMaxInt = std::numeric_limits<int>::max();
    if (arg == "--checkpoint") o.checkpoint = value;
    else if (arg == "--json") o.json_path = value;
    else if (arg == "--work") o.work_dir = value;
    else if (arg == "--keep-work") o.keep_work = true;
    else if (arg == "--mapping-only") o.mapping_only = true;
    else if (arg == "--blocks") {
      std::vector<std::int64_t> b;
      FUSEKIT_TRY(detail::parse_list(arg, value, false, b));
      o.blocks = std::move(b);
    } else if (arg == "--tokens") FUSEKIT_TRY(detail::parse_list(arg, value, true, o.tokens));
    else if (arg == "--config") {
      if (value == "full") o.widths = checkpoint::H3Config::full();
      else if (value == "tiny") o.widths = checkpoint::H3Config::tiny();
      else return detail::option_error("--config takes full or tiny, got \"" + value + "\"");
    } else if (arg == "--replays") {
      FUSEKIT_TRY(detail::parse_count(arg, value, 1, kMaxInt, n));
      o.replays = static_cast<int>(n);
    } else if (arg == "--calls-per-replay") {
      FUSEKIT_TRY(detail::parse_count(arg, value, 1, kMaxInt, n));
      o.calls_per_replay = static_cast<int>(n);
    } else if (arg == "--seed") {  // any 64-bit seed, as the report writes fresh ones
      FUSEKIT_TRY(detail::parse_count(arg, value, 0, std::numeric_limits<std::uint64_t>::max(), n));
      o.seed = n;
    } else return detail::option_error("unknown argument \"" + arg + "\"");
  }
  if (o.checkpoint.empty()) return detail::option_error("--checkpoint DIR is required");
  if (o.json_path.empty()) return detail::option_error("--json needs a file name");
  out = std::move(o);
  return {};
}

}  // namespace fusekit::layer_report
