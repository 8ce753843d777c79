// fusekit_bench_checkpoint: map (diffusers -> native) and inverse (native -> diffusers) of a
// generated full-width MiniMax-H3 checkpoint, against `cp` of the same files in the same run.
//
//   fusekit_bench_checkpoint [--dir D] [--blocks N] [--rounds R] [--cache cold|warm] [--early-writeback on|off]
//                            [--shard-mb N] [--baseline on|off]
//
// cold: the page cache is dropped before every timed step, so each step reads from the disk
// (as root through /proc/sys/vm/drop_caches; otherwise the source's pages are evicted file by
// file with POSIX_FADV_DONTNEED after a sync, which needs no privilege); warm: the source is
// read once before every timed step. The converter fsyncs what it writes (atomic publication),
// so `cp` is timed with `sync` of its output too; plain `cp` times are printed beside it. --baseline on also times, in every round beside the
// converter, the writer with the other --early-writeback setting, so the two are compared in
// the same run.
#include "fusekit/checkpoint/h3_fixture.hpp"
#include "fusekit/checkpoint/mapping_report.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace fusekit;
using namespace fusekit::checkpoint;
namespace fs = std::filesystem;

namespace {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

void run_or_die(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "command failed: " << cmd << "\n";
    std::exit(1);
  }
}

std::uint64_t dir_bytes(const std::string& dir) {
  std::uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.file_size();
  return n;
}

// Flushes dirty pages, then empties the page cache; false where that is not permitted.
bool drop_caches() {
  run_or_die("sync");
  std::ofstream f("/proc/sys/vm/drop_caches");
  f << "3\n";
  f.flush();
  return f.good();
}

// Without root: write everything back, then drop the clean pages of each file of `dir`.
bool evict_dir(const std::string& dir) {
  run_or_die("sync");
  for (const auto& e : fs::directory_iterator(dir)) {
    const int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) return false;
    const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    if (rc != 0) return false;
  }
  return true;
}

enum class ColdBy { drop_caches, evict };
ColdBy cold_by = ColdBy::drop_caches;

// Deletes the step's output first: on a file system mounted with `discard`, freeing gigabytes
// issues discards at the next journal commit, which must fall before the timed step, not in it.
void prepare(bool cold, const std::string& source, const std::string& target) {
  fs::remove_all(target);
  if (!cold) {
    run_or_die("sync && cat '" + source + "'/* > /dev/null");
  } else if (cold_by == ColdBy::drop_caches) {
    drop_caches();
  } else if (!evict_dir(source)) {
    std::cerr << "cannot evict " << source << " from the page cache\n";
    std::exit(1);
  }
}

struct CpTime {
  double copy = 0, copy_and_sync = 0;
};

CpTime time_cp(const std::string& from, const std::string& to) {
  const auto t0 = clock_type::now();
  run_or_die("cp -r '" + from + "' '" + to + "'");
  CpTime t;
  t.copy = since(t0);
  run_or_die("sync '" + to + "'/*");  // fsync of each copied file, as the converter does
  t.copy_and_sync = since(t0);
  return t;
}

// Peak resident memory since the last reset (VmHWM), in MB; reset by writing 5 to clear_refs.
double peak_rss_mb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return -1;
}
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5\n"; }

double max_convert_rss_mb = 0;

double time_convert(const std::string& from, const Plan& plan, const std::string& to, const ConvertOptions& opt) {
  reset_peak_rss();
  const auto t0 = clock_type::now();
  Checkpoint in;
  Status s = Checkpoint::open(from, in);
  if (s.ok()) s = convert(in, plan, to, opt);
  max_convert_rss_mb = std::max(max_convert_rss_mb, peak_rss_mb());
  if (!s.ok()) {
    std::cerr << s.to_string() << "\n";
    std::exit(1);
  }
  return since(t0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp/fusekit-bench-checkpoint";
  std::int64_t blocks = 3;
  int rounds = 3;
  bool cold = true, baseline = false;
  ConvertOptions opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--dir") dir = v;
    else if (a == "--blocks") blocks = std::stoll(v);
    else if (a == "--rounds") rounds = std::stoi(v);
    else if (a == "--cache") cold = v == "cold";
    else if (a == "--early-writeback") opt.write.early_writeback = v == "on";  // default off
    else if (a == "--shard-mb") opt.sharding.max_shard_bytes = std::stoull(v) * 1'000'000;
    else if (a == "--baseline") baseline = v == "on";
    else {
      std::cerr << "usage: fusekit_bench_checkpoint [--dir D] [--blocks N] [--rounds R] [--cache cold|warm] [--early-writeback on|off] [--shard-mb N] [--baseline on|off]\n";
      return 2;
    }
  }
  if (cold && !drop_caches()) {
    cold_by = ColdBy::evict;
    std::printf("no permission to drop the page cache: evicting each step's source files (POSIX_FADV_DONTNEED)\n");
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string diffusers = dir + "/diffusers", native = dir + "/native", back = dir + "/back", copy = dir + "/copy";

  H3FixtureOptions fx;
  fx.config = H3Config::full();
  fx.config.main_blocks = blocks;
  fx.layout = H3Layout::diffusers;
  fx.shards = 2;
  auto t0 = clock_type::now();
  if (Status s = write_h3_fixture(diffusers, fx); !s.ok()) return std::cerr << s.to_string() << "\n", 1;
  const std::uint64_t bytes = dir_bytes(diffusers);
  std::printf("generated %.3f GB (full width, %lld main + %lld refiner blocks) in %.1f s\n", bytes / 1e9,
              static_cast<long long>(blocks), static_cast<long long>(fx.config.refiner_blocks), since(t0));

  Plan to_native, to_diffusers;
  if (!h3_plan(fx.config, H3Layout::diffusers, H3Layout::native, to_native).ok() ||
      !h3_plan(fx.config, H3Layout::native, H3Layout::diffusers, to_diffusers).ok())
    return 1;

  ConvertOptions old_opt = opt;
  old_opt.write.early_writeback = !opt.write.early_writeback;
  const std::string old_out = dir + "/baseline";

  std::vector<double> cp_in, cp_in_sync, map, cp_native, cp_native_sync, inv, old_map, old_inv;
  bool bitwise = false;
  for (int r = 0; r < rounds; ++r) {
    prepare(cold, diffusers, copy);
    CpTime c = time_cp(diffusers, copy);
    cp_in.push_back(c.copy);
    cp_in_sync.push_back(c.copy_and_sync);
    // The two writeback settings swap places every round: neither always follows cp.
    auto convert_step = [&](const std::string& from, const Plan& plan, const std::string& to, std::vector<double>& t,
                            std::vector<double>& old_t) {
      const bool old_first = baseline && r % 2 == 1;
      auto run_old = [&] {
        prepare(cold, from, old_out);
        old_t.push_back(time_convert(from, plan, old_out, old_opt));
      };
      if (old_first) run_old();
      prepare(cold, from, to);
      t.push_back(time_convert(from, plan, to, opt));
      if (baseline && !old_first) run_old();
    };
    convert_step(diffusers, to_native, native, map, old_map);
    prepare(cold, native, copy);
    c = time_cp(native, copy);
    cp_native.push_back(c.copy);
    cp_native_sync.push_back(c.copy_and_sync);
    convert_step(native, to_diffusers, back, inv, old_inv);
    if (baseline) std::printf("round %d other writeback setting: map %.2f s, inverse %.2f s\n", r, old_map.back(), old_inv.back());
    if (r + 1 == rounds) {  // once, after the timed steps: it pulls both checkpoints into memory
      Checkpoint a, b;
      if (!Checkpoint::open(diffusers, a).ok() || !Checkpoint::open(back, b).ok()) return 1;
      bitwise = same_tensors(a, b);
    }
    std::printf("round %d: cp %.2f s (+sync %.2f s), map %.2f s | cp native %.2f s (+sync %.2f s), inverse %.2f s\n", r,
                cp_in.back(), cp_in_sync.back(), map.back(), cp_native.back(), cp_native_sync.back(), inv.back());
    std::fflush(stdout);
  }

  auto gbps = [&](double s) { return bytes / s / 1e9; };
  // Per-round ratios (cp and converter timed back to back) are steadier than ratios of medians
  // on a shared disk.
  auto report = [&](const char* label, const std::vector<double>& cp_sync, const std::vector<double>& t) {
    std::vector<double> ratio;
    for (std::size_t r = 0; r < t.size(); ++r) ratio.push_back(cp_sync[r] / t[r]);
    std::printf("  %-21s %6.2f s  %.3f GB/s  throughput vs cp+sync: median %.1f%% (min %.1f%%, max %.1f%%)\n", label,
                median(t), gbps(median(t)), 100 * median(ratio), 100 * *std::min_element(ratio.begin(), ratio.end()),
                100 * *std::max_element(ratio.begin(), ratio.end()));
  };
  std::uint64_t full_bytes = 0;
  for (const TensorSpec& t : h3_tensors(H3Config::full(), H3Layout::diffusers)) full_bytes += *byte_size(t.dtype, t.shape);
  const double m_cp = median(cp_in_sync), m_map = median(map), m_cpn = median(cp_native_sync), m_inv = median(inv);
  std::printf("\n%s cache, %.3f GB, medians of %d rounds\n", cold ? "cold" : "warm", bytes / 1e9, rounds);
  std::printf("  cp diffusers+sync     %6.2f s  %.3f GB/s (plain cp, no sync: %.2f s)\n", m_cp, gbps(m_cp), median(cp_in));
  report("map -> native", cp_in_sync, map);
  const char* other = opt.write.early_writeback ? "  early writeback off" : "  early writeback on";
  if (baseline) report(other, cp_in_sync, old_map);
  std::printf("  cp native+sync        %6.2f s  %.3f GB/s (plain cp, no sync: %.2f s)\n", m_cpn, gbps(m_cpn), median(cp_native));
  report("inverse -> diffusers", cp_native_sync, inv);
  if (baseline) report(other, cp_native_sync, old_inv);
  std::printf("  round trip bitwise: %s; peak RSS during a conversion: %.1f MB; early writeback %s\n",
              bitwise ? "true" : "false", max_convert_rss_mb, opt.write.early_writeback ? "on" : "off");
  std::printf("  the full 638-tensor checkpoint is %.2f GB: at these rates map %.0f s, inverse %.0f s\n", full_bytes / 1e9,
              full_bytes / (bytes / m_map), full_bytes / (bytes / m_inv));
  fs::remove_all(dir);
  return bitwise ? 0 : 1;
}
