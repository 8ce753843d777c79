// fusekit-convert: MiniMax-H3 checkpoints between layouts, plus a generator of random-weight
// checkpoints and a timed round trip in the seed report's format.
//
//   fusekit-convert --to native|diffusers|original IN OUT [--from LAYOUT] [--dry-run] [--verify]
//   fusekit-convert --generate LAYOUT OUT [--shards K] [--seed S]
//   fusekit-convert --roundtrip IN WORK_DIR
// Common options: --config full|tiny, --blocks N (main blocks), --refiner-blocks N,
// --shard-mb N (output shard size), --no-kernel-copy (write from the mapping instead),
// --early-writeback (a second thread writes each finished chunk back at once instead of the kernel).
#include "fusekit/checkpoint/h3_fixture.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace fusekit;
using namespace fusekit::checkpoint;

namespace {

constexpr const char* kUsage =
    "usage: fusekit-convert --to native|diffusers|original IN OUT [--from LAYOUT] [--dry-run] [--verify]\n"
    "       fusekit-convert --generate diffusers|native|original OUT [--shards K] [--seed S]\n"
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
  std::size_t shards = 2;
  std::uint64_t seed = 1;
};

std::optional<H3Layout> parse_layout(const std::string& s) {
  if (s == "diffusers") return H3Layout::diffusers;
  if (s == "native") return H3Layout::native;
  if (s == "original") return H3Layout::original;
  return std::nullopt;
}

bool parse_args(int argc, char** argv, Args& a, std::string& error) {
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
    auto number = [&]() -> std::int64_t {
      const std::string v = value();
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0) error = arg + " takes a non-negative integer";
      return n;
    };
    if (arg == "--to") a.mode = "to", layout(a.to);
    else if (arg == "--from") layout(a.from);
    else if (arg == "--generate") a.mode = "generate", layout(a.generate);
    else if (arg == "--roundtrip") a.mode = "roundtrip";
    else if (arg == "--dry-run") a.dry_run = true;
    else if (arg == "--verify") a.verify = true;
    else if (arg == "--no-kernel-copy") a.kernel_copy = false;
    else if (arg == "--early-writeback") a.early_writeback = true;
    else if (arg == "--blocks") blocks = number();
    else if (arg == "--refiner-blocks") refiner = number();
    else if (arg == "--shard-mb") a.shard_bytes = static_cast<std::uint64_t>(number()) * 1'000'000;
    else if (arg == "--shards") a.shards = static_cast<std::size_t>(number());
    else if (arg == "--seed") a.seed = static_cast<std::uint64_t>(number());
    else if (arg == "--config") {
      const std::string c = value();
      if (c == "full") a.config = H3Config::full();
      else if (c == "tiny") a.config = H3Config::tiny();
      else error = "--config takes full or tiny";
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

// A progress line on stderr, redrawn at most twice a second.
class ProgressLine {
 public:
  explicit ProgressLine(std::string what) : what_(std::move(what)), start_(clock::now()) {}
  void operator()(const WriteProgress& p) {
    const auto now = clock::now();
    if (now - last_ < std::chrono::milliseconds(500) && p.done != p.total) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%s: shard %zu/%zu  %.2f / %.2f GB  %.0f MB/s   ", what_.c_str(), p.shard + 1, p.shards,
                 p.done / 1e9, p.total / 1e9, s > 0 ? p.done / s / 1e6 : 0.0);
    drawn_ = true;
  }
  ~ProgressLine() {
    if (drawn_) std::fprintf(stderr, "\n");
  }

 private:
  using clock = std::chrono::steady_clock;
  std::string what_;
  clock::time_point start_, last_{};
  bool drawn_ = false;
};

// Which layout a checkpoint is in, from names only one layout uses.
H3Layout detect_layout(const Checkpoint& c) {
  if (c.find("rope.inv_freq").spec) return H3Layout::original;
  if (c.find("proj_in.weight").spec || c.find("norm_out.norm.weight").spec) return H3Layout::diffusers;
  return H3Layout::native;
}

int fail(const Status& s) {
  std::cerr << "fusekit-convert: " << s.to_string() << "\n";
  return 1;
}

ConvertOptions convert_options(const Args& a) {
  ConvertOptions opt;
  opt.sharding.max_shard_bytes = a.shard_bytes;
  opt.write.kernel_copy = a.kernel_copy;
  opt.write.early_writeback = a.early_writeback;
  return opt;
}

int run_convert(const Args& a) {
  Checkpoint in;
  const bool have_input = !a.paths.empty();
  if (have_input) {
    Status s = Checkpoint::open(a.paths[0], in);
    if (!s.ok()) return fail(s);
  }
  const H3Layout from = a.from ? *a.from : have_input ? detect_layout(in) : H3Layout::diffusers;
  Plan plan;
  if (Status s = h3_plan(a.config, from, *a.to, plan); !s.ok()) return fail(s);

  if (a.dry_run) {
    std::cout << describe(plan);
    if (have_input) {
      if (Status s = check_input(in, plan); !s.ok()) return fail(s);
      std::cout << "input " << a.paths[0] << " matches the plan (" << in.size() << " tensors); nothing written\n";
    }
    return 0;
  }
  ConvertOptions opt = convert_options(a);
  ProgressLine progress(std::string("convert ") + layout_name(from) + " -> " + layout_name(*a.to));
  opt.progress = std::ref(progress);
  const auto t0 = std::chrono::steady_clock::now();
  if (Status s = convert(in, plan, a.paths[1], opt); !s.ok()) return fail(s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "wrote " << plan.outputs().size() << " tensors (" << layout_name(*a.to) << ") to " << a.paths[1] << " in "
            << seconds << " s\n";

  if (a.verify) {
    Checkpoint out;
    if (Status s = Checkpoint::open(a.paths[1], out); !s.ok()) return fail(s);
    bool bitwise = false;
    std::string where;
    if (Status s = verify_inverse(in, out, plan, bitwise, &where); !s.ok()) return fail(s);
    std::cout << "verify: mapping back reproduces the input bit for bit: " << (bitwise ? "yes" : "NO, first at " + where)
              << "\n";
    if (!bitwise) return 1;
  }
  return 0;
}

int run_generate(const Args& a) {
  H3FixtureOptions fx;
  fx.config = a.config;
  fx.layout = *a.generate;
  fx.shards = a.shards;
  fx.seed = a.seed;
  ProgressLine progress(std::string("generate ") + layout_name(fx.layout));
  fx.progress = std::ref(progress);
  if (Status s = write_h3_fixture(a.paths[0], fx); !s.ok()) return fail(s);
  std::cout << "wrote a random " << layout_name(fx.layout) << " checkpoint (" << a.config.main_blocks << " main blocks) to "
            << a.paths[0] << "\n";
  return 0;
}

int run_roundtrip(const Args& a) {
  Checkpoint in;
  if (Status s = Checkpoint::open(a.paths[0], in); !s.ok()) return fail(s);
  const H3Layout from = a.from ? *a.from : detect_layout(in);
  Plan plan;
  if (Status s = h3_plan(a.config, from, H3Layout::native, plan); !s.ok()) return fail(s);
  MappingReport r;
  if (Status s = measure_roundtrip(a.paths[0], plan, a.paths[1], convert_options(a), r); !s.ok()) return fail(s);
  std::cout << nlohmann::ordered_json{{"mapping", r.to_json()}}.dump(1) << "\n";
  return r.roundtrip_bitwise ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::string error;
  if (!parse_args(argc, argv, a, error)) {
    std::cerr << "fusekit-convert: " << error << "\n" << kUsage;
    return 2;
  }
  if (a.mode == "generate") return run_generate(a);
  if (a.mode == "roundtrip") return run_roundtrip(a);
  return run_convert(a);
}
