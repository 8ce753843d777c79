// fusekit-convert's command line and its three modes, as a function of (argv, out, err) so the
// CPU tests can run it (test/checkpoint). Host-only.
//
//   fusekit-convert --to native|diffusers|original IN OUT [--from LAYOUT] [--dry-run] [--verify]
//   fusekit-convert --generate LAYOUT OUT [--shards K] [--seed S] [--values bits|weights]
//   fusekit-convert --roundtrip IN WORK_DIR
// Common options: --config full|tiny, --blocks N (main blocks), --refiner-blocks N,
// --shard-mb N (output shard size), --no-kernel-copy (write from the mapping instead),
// --early-writeback (a second thread writes each finished chunk back at once instead of the kernel).
#pragma once

#include "fusekit/checkpoint/h3_fixture.hpp"
#include "fusekit/checkpoint/h3_layout.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"

#include <chrono>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace fusekit::convert_cli {

using namespace fusekit::checkpoint;

inline constexpr const char* kUsage =
    "usage: fusekit-convert --to native|diffusers|original IN OUT [--from LAYOUT] [--dry-run] [--verify]\n"
    "       fusekit-convert --generate diffusers|native|original OUT [--shards K] [--seed S] [--values bits|weights]\n"
    "       fusekit-convert --roundtrip IN WORK_DIR\n"
    "options: --config full|tiny  --blocks N  --refiner-blocks N  --shard-mb N  --no-kernel-copy  --early-writeback\n"
    "IN is a .safetensors file, an index JSON or a directory; OUT is a directory.\n";

struct Args {
  std::string mode;  // "to", "generate", "roundtrip"
  std::optional<H3Layout> to, from, generate;
  std::vector<std::string> paths;
  H3Config config = H3Config::full();
  bool dry_run = false, verify = false, kernel_copy = true, early_writeback = false;
  std::uint64_t shard_bytes = 5'000'000'000;
  std::uint64_t shards = 2;
  std::uint64_t seed = 1;
  FixtureValues values = FixtureValues::random_bits;  // --generate: random bit patterns or weight-like values
};

inline std::optional<H3Layout> parse_layout(const std::string& s) {
  if (s == "diffusers") return H3Layout::diffusers;
  if (s == "native") return H3Layout::native;
  if (s == "original") return H3Layout::original;
  return std::nullopt;
}

// Decimal digits only (no sign, no spaces) and at most `max`: strtoll would clamp or wrap what
// does not fit, and a later cast would wrap again.
inline std::optional<std::uint64_t> parse_uint(const std::string& v, std::uint64_t max) {
  std::uint64_t n = 0;  // from_chars: digits only, and out of range is an error, not a clamp
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || end != v.data() + v.size() || v.empty() || n > max) return std::nullopt;
  return n;
}

inline bool parse_args(int argc, const char* const* argv, Args& a, std::string& error) {
  std::optional<std::int64_t> blocks, refiner;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return {};
      }
      return argv[++i];
    };
    auto layout = [&](std::optional<H3Layout>& out) {
      out = parse_layout(value());
      if (!out && error.empty()) error = arg + " takes diffusers, native or original";
    };
    auto number = [&](std::uint64_t max) -> std::uint64_t {
      const std::string v = value();
      const auto n = parse_uint(v, max);
      if (!n && error.empty()) error = arg + " takes an integer from 0 to " + std::to_string(max) + ", got \"" + v + "\"";
      return n.value_or(0);
    };
    constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
    if (arg == "--to") a.mode = "to", layout(a.to);
    else if (arg == "--from") layout(a.from);
    else if (arg == "--generate") a.mode = "generate", layout(a.generate);
    else if (arg == "--roundtrip") a.mode = "roundtrip";
    else if (arg == "--dry-run") a.dry_run = true;
    else if (arg == "--verify") a.verify = true;
    else if (arg == "--no-kernel-copy") a.kernel_copy = false;
    else if (arg == "--early-writeback") a.early_writeback = true;
    else if (arg == "--blocks") blocks = static_cast<std::int64_t>(number(kMaxH3Blocks));
    else if (arg == "--refiner-blocks") refiner = static_cast<std::int64_t>(number(kMaxH3Blocks));
    else if (arg == "--shard-mb") a.shard_bytes = number(kMaxU64 / 1'000'000) * 1'000'000;  // the bytes fit 64 bits
    else if (arg == "--shards") a.shards = number(kMaxU64);
    else if (arg == "--seed") a.seed = number(kMaxU64);
    else if (arg == "--values") {
      const std::string v = value();
      if (v == "bits") a.values = FixtureValues::random_bits;
      else if (v == "weights") a.values = FixtureValues::weights;
      else if (error.empty()) error = "--values takes bits or weights";
    } else if (arg == "--config") {
      const std::string c = value();
      if (c == "full") a.config = H3Config::full();
      else if (c == "tiny") a.config = H3Config::tiny();
      else if (error.empty()) error = "--config takes full or tiny";
    } else if (arg.starts_with("--")) error = "unknown option " + arg;
    else a.paths.push_back(arg);
    if (!error.empty()) return false;
  }
  if (blocks) a.config.main_blocks = *blocks;
  if (refiner) a.config.refiner_blocks = *refiner;
  const std::size_t need = a.mode == "generate" ? 1 : a.mode == "to" && a.dry_run ? 0 : 2;
  if (a.mode.empty()) error = "say --to, --generate or --roundtrip";
  else if (a.paths.size() < need || a.paths.size() > 2) error = "wrong number of paths";
  else if (a.shard_bytes == 0) error = "--shard-mb must be positive";
  return error.empty();
}

// A progress line on `err`, redrawn at most twice a second.
class ProgressLine {
 public:
  ProgressLine(std::string what, std::ostream& err) : what_(std::move(what)), err_(err), start_(clock::now()) {}
  void operator()(const WriteProgress& p) {
    const auto now = clock::now();
    if (now - last_ < std::chrono::milliseconds(500) && p.done != p.total) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    char line[160];
    std::snprintf(line, sizeof line, "\r%s: shard %zu/%zu  %.2f / %.2f GB  %.0f MB/s   ", what_.c_str(), p.shard + 1,
                  p.shards, p.done / 1e9, p.total / 1e9, s > 0 ? p.done / s / 1e6 : 0.0);
    err_ << line << std::flush;
    drawn_ = true;
  }
  ~ProgressLine() {
    if (drawn_) err_ << "\n";
  }

 private:
  using clock = std::chrono::steady_clock;
  std::string what_;
  std::ostream& err_;
  clock::time_point start_, last_{};
  bool drawn_ = false;
};

class Cli {
 public:
  Cli(const Args& a, std::ostream& out, std::ostream& err) : a_(a), out_(out), err_(err) {}

  int run() {
    if (a_.mode == "generate") return run_generate();
    if (a_.mode == "roundtrip") return run_roundtrip();
    return run_convert();
  }

 private:
  int fail(const Status& s) {
    err_ << "fusekit-convert: " << s.to_string() << "\n";
    return 1;
  }

  ConvertOptions convert_options() const {
    ConvertOptions opt;
    opt.sharding.max_shard_bytes = a_.shard_bytes;
    opt.write.kernel_copy = a_.kernel_copy;
    opt.write.early_writeback = a_.early_writeback;
    return opt;
  }

  // The layout of the checkpoint at `path` (detected, or --from checked against it).
  Status source_layout(const Checkpoint& in, const std::string& path, H3Layout& from) const {
    Status s = detect_h3_layout(in, a_.from, from);
    return s.ok() ? s : Status{s.code(), path + ": " + s.message()};
  }

  int run_convert() {
    Checkpoint in;
    const bool have_input = !a_.paths.empty();
    H3Layout from;
    if (have_input) {
      if (Status s = Checkpoint::open(a_.paths[0], in); !s.ok()) return fail(s);
      if (Status s = source_layout(in, a_.paths[0], from); !s.ok()) return fail(s);
    } else {
      // A dry run with no input: --from, else the one source a plan to --to can have
      // (diffusers for native; plans go through native).
      from = a_.from ? *a_.from : *a_.to == H3Layout::native ? H3Layout::diffusers : H3Layout::native;
    }
    Plan plan;
    if (Status s = h3_plan(a_.config, from, *a_.to, plan); !s.ok()) return fail(s);

    if (a_.dry_run) {
      out_ << describe(plan);
      if (have_input) {
        if (Status s = check_input(in, plan); !s.ok()) return fail(s);
        out_ << "input " << a_.paths[0] << " matches the plan (" << in.size() << " tensors); nothing written\n";
      }
      return 0;
    }
    ConvertOptions opt = convert_options();
    ProgressLine progress(std::string("convert ") + layout_name(from) + " -> " + layout_name(*a_.to), err_);
    opt.progress = std::ref(progress);
    const auto t0 = std::chrono::steady_clock::now();
    if (Status s = convert(in, plan, a_.paths[1], opt); !s.ok()) return fail(s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out_ << "wrote " << plan.outputs().size() << " tensors (" << layout_name(*a_.to) << ") to " << a_.paths[1] << " in "
         << seconds << " s\n";

    if (a_.verify) {
      Checkpoint out;
      if (Status s = Checkpoint::open(a_.paths[1], out); !s.ok()) return fail(s);
      bool bitwise = false;
      std::string where;
      if (Status s = verify_inverse(in, out, plan, bitwise, &where); !s.ok()) return fail(s);
      out_ << "verify: mapping back reproduces the input bit for bit: " << (bitwise ? "yes" : "NO, first at " + where)
           << "\n";
      if (!bitwise) return 1;
    }
    return 0;
  }

  int run_generate() {
    H3FixtureOptions fx;
    fx.config = a_.config;
    fx.layout = *a_.generate;
    fx.shards = static_cast<std::size_t>(a_.shards);
    fx.seed = a_.seed;
    fx.values = a_.values;
    ProgressLine progress(std::string("generate ") + layout_name(fx.layout), err_);
    fx.progress = std::ref(progress);
    if (Status s = write_h3_fixture(a_.paths[0], fx); !s.ok()) return fail(s);
    const char* values = fx.values == FixtureValues::weights ? "(weight-like) " : "";
    out_ << "wrote a random " << values << layout_name(fx.layout) << " checkpoint (" << a_.config.main_blocks
         << " main blocks) to " << a_.paths[0] << "\n";
    return 0;
  }

  int run_roundtrip() {
    Checkpoint in;
    if (Status s = Checkpoint::open(a_.paths[0], in); !s.ok()) return fail(s);
    H3Layout from;
    if (Status s = source_layout(in, a_.paths[0], from); !s.ok()) return fail(s);
    Plan plan;
    if (Status s = h3_plan(a_.config, from, H3Layout::native, plan); !s.ok()) return fail(s);
    MappingReport r;
    if (Status s = measure_roundtrip(a_.paths[0], plan, a_.paths[1], convert_options(), r); !s.ok()) return fail(s);
    out_ << nlohmann::ordered_json{{"mapping", r.to_json()}}.dump(1) << "\n";
    return r.roundtrip_bitwise ? 0 : 1;
  }

  const Args& a_;
  std::ostream& out_;
  std::ostream& err_;
};

// The whole program: exit status 0 done, 1 failed (the reason on `err`), 2 bad usage.
inline int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argc, argv, a, error)) {
    err << "fusekit-convert: " << error << "\n" << kUsage;
    return 2;
  }
  return Cli(a, out, err).run();
}

}  // namespace fusekit::convert_cli
