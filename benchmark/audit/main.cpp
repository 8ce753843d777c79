// fusekit-audit: runs a reference and a candidate benchmark binary interleaved over rounds, with
// the torch probe as a control, records every report, and writes the audit (docs/benchmarks.md).
//   fusekit-audit --reference BIN --candidate BIN --out DIR [--rounds 4] [--filter REGEX]
//                 [--reference-impl fusekit] [--candidate-impl fusekit]
//                 [--control "python3 benchmark/torch_probe.py"] [--bench-arg ARG]... [--artifact PATH]...
//                 [--min-effect 0.03] [--alpha 0.05] [--drift-band 0.25]
//   fusekit-audit --replay DIR [--out FILE]     re-check a recorded audit offline
//   fusekit-audit --recompute DIR               rewrite DIR/audit.json from DIR's manifest and reports
// Exit status: 0 when the audit passes, 1 when it fails (reasons in "failures"), 2 on bad usage.
#include "recording.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace {

namespace fs = std::filesystem;
using namespace fusekit::audit;

constexpr const char* kUsage =
    "usage: fusekit-audit --reference BIN --candidate BIN --out DIR [--rounds N] [--filter REGEX]\n"
    "                     [--reference-impl IMPL] [--candidate-impl IMPL] [--control \"CMD ...\"]\n"
    "                     [--bench-arg ARG]... [--artifact PATH]... [--min-effect X] [--alpha X] [--drift-band X]\n"
    "       fusekit-audit --replay DIR [--out FILE]\n"
    "       fusekit-audit --recompute DIR\n";

struct Args {
  std::string reference, candidate, out, replay, recompute, control;
  int rounds = 4;
  AuditOptions options;
  std::vector<std::string> bench_args, artifacts;
};

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "fusekit-audit: " << why << "\n" << kUsage;
  std::exit(2);
}

double positive_number(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size() && x > 0) return x;
  } catch (const std::exception&) {
  }
  usage_error(flag + " needs a positive number, got \"" + v + "\"");
}

// A whole number of rounds, 1 to 1000 (a cast of 4.7 or 1e10 would round or wrap it).
int round_count(const std::string& flag, const std::string& v) {
  const double x = positive_number(flag, v);
  if (x != std::floor(x) || x > 1000) usage_error(flag + " needs a whole number from 1 to 1000, got \"" + v + "\"");
  return static_cast<int>(x);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error(flag + " needs a value (or is unknown)");
    const std::string v = argv[++i];
    if (flag == "--reference") a.reference = v;
    else if (flag == "--candidate") a.candidate = v;
    else if (flag == "--out") a.out = v;
    else if (flag == "--replay") a.replay = v;
    else if (flag == "--recompute") a.recompute = v;
    else if (flag == "--rounds") a.rounds = round_count(flag, v);
    else if (flag == "--filter") a.options.filter = v;
    else if (flag == "--reference-impl") a.options.reference_impl = v;
    else if (flag == "--candidate-impl") a.options.candidate_impl = v;
    else if (flag == "--control") a.control = v;
    else if (flag == "--bench-arg") a.bench_args.push_back(v);
    else if (flag == "--artifact") a.artifacts.push_back(v);
    else if (flag == "--min-effect") a.options.rule.min_effect = positive_number(flag, v);
    else if (flag == "--alpha") a.options.rule.alpha = positive_number(flag, v);
    else if (flag == "--drift-band") a.options.rule.drift_band = positive_number(flag, v);
    else usage_error("unknown flag " + flag);
  }
  if (!a.replay.empty() || !a.recompute.empty()) return a;
  if (a.reference.empty() || a.candidate.empty() || a.out.empty()) usage_error("--reference, --candidate and --out are required");
  return a;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!w.empty()) words.push_back(std::move(w)), w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  return words;
}

// Runs argv with stdout and stderr appended to `log`; returns the exit status (128 + signal).
int run_logged(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> cargs;
  for (const std::string& s : argv) cargs.push_back(const_cast<char*>(s.c_str()));
  cargs.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp(cargs[0], cargs.data());
    std::fprintf(stderr, "fusekit-audit: cannot execute %s: %s\n", cargs[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The filter a benchmark binary gets: the audit's filter and this side's impl, so that a binary
// holding several impls runs only the one audited (POSIX extended regex, Google Benchmark's dialect).
std::string binary_filter(const std::string& filter, const std::string& impl) {
  const std::string part = "/" + impl + "/";
  return filter.empty() ? part : "(" + filter + ").*" + part + "|" + part + ".*(" + filter + ")";
}

std::string absolute(const std::string& p) { return fs::weakly_canonical(fs::absolute(p)).string(); }

// Computes the audit of a recorded directory into DIR/audit.json; 0 when it passes.
int write_audit(const fs::path& dir) {
  const Json audit = audit_directory(dir);
  write_file(dir / "audit.json", audit.dump(2) + "\n");
  std::cerr << "fusekit-audit: " << audit["status"].get<std::string>() << ", " << (dir / "audit.json").string() << "\n";
  for (const Json& f : audit["failures"]) std::cerr << "  " << f.get<std::string>() << "\n";
  return audit["status"] == "pass" ? 0 : 1;
}

int live_audit(const Args& a) {
  const fs::path dir = a.out;
  begin_recording(dir);
  // Artifacts hashed before anything runs: both binaries, every file the control command names,
  // and the inputs the caller lists. They are hashed again by the audit at the end.
  std::vector<std::string> artifact_paths{absolute(a.reference), absolute(a.candidate)};
  const std::vector<std::string> control = split_words(a.control);
  for (const std::string& w : control)
    if (fs::is_regular_file(w)) artifact_paths.push_back(absolute(w));
  for (const std::string& p : a.artifacts) artifact_paths.push_back(absolute(p));
  Json artifacts = Json::array();
  for (const std::string& p : artifact_paths) artifacts.push_back(Json{{"path", p}, {"sha256", sha256_file(p)}});

  Json manifest{{"tool", "fusekit-audit"}, {"format", kManifestFormat}, {"options", options_json(a.options)},
                {"rounds", a.rounds}, {"reports", Json::array()}, {"artifacts", artifacts}, {"failures", Json::array()},
                {"commands", Json::array()}};
  auto run_side = [&](const std::string& side, int round) {
    const std::string file = "round" + std::to_string(round) + "_" + side + ".json";
    const fs::path report = dir / file, log = dir / ("round" + std::to_string(round) + "_" + side + ".log");
    fs::remove(report);
    std::vector<std::string> argv;
    if (side == "control") {
      argv = control;
      argv.insert(argv.end(), {"--filter", a.options.filter, "--out", report.string()});
    } else {
      const std::string& impl = side == "reference" ? a.options.reference_impl : a.options.candidate_impl;
      argv = {absolute(side == "reference" ? a.reference : a.candidate), "--benchmark_filter=" + binary_filter(a.options.filter, impl),
              "--benchmark_out=" + report.string(), "--benchmark_out_format=json", "--require-gpu"};
      argv.insert(argv.end(), a.bench_args.begin(), a.bench_args.end());
    }
    std::cerr << "fusekit-audit: round " << round << "/" << a.rounds << ": " << side << "\n";
    const int rc = run_logged(argv, log);
    std::string joined;
    for (const std::string& w : argv) joined += (joined.empty() ? "" : " ") + w;
    manifest["commands"].push_back(Json{{"round", round}, {"side", side}, {"argv", joined}, {"exit_code", rc}});
    if (rc != 0) manifest["failures"].push_back(side + " round " + std::to_string(round) + " exited with " + std::to_string(rc) + " (see " + log.filename().string() + ")");
    std::string sha;
    if (fs::exists(report)) sha = sha256_file(report.string());
    else write_file(report, "");  // recorded as empty: the audit reports it as corrupt
    manifest["reports"].push_back(Json{{"side", side}, {"round", round}, {"file", file}, {"sha256", sha.empty() ? sha256_hex("") : sha}});
  };
  for (int round = 1; round <= a.rounds; ++round) {
    // Interleaved: reference first in odd rounds, candidate first in even ones; the control between.
    const bool ref_first = round % 2 == 1;
    run_side(ref_first ? "reference" : "candidate", round);
    if (!control.empty()) run_side("control", round);
    run_side(ref_first ? "candidate" : "reference", round);
  }
  // Reports in manifest order per side (reference, candidate, control), as audit_directory reads them.
  Json ordered = Json::array();
  for (const char* side : {"reference", "candidate", "control"})
    for (const Json& r : manifest["reports"])
      if (r["side"] == side) ordered.push_back(r);
  manifest["reports"] = ordered;
  write_file(dir / "manifest.json", manifest.dump(2) + "\n");
  return write_audit(dir);
}

int replay(const Args& a) {
  const Json audit = replay_directory(a.replay);
  const std::string text = audit.dump(2) + "\n";
  if (a.out.empty()) std::cout << text;
  else write_file(a.out, text);
  std::cerr << "fusekit-audit: replay " << audit["status"].get<std::string>()
            << (audit["replay_of"]["matches"].get<bool>() ? ", reproduces the recorded audit" : ", does NOT reproduce the recorded audit")
            << "\n";
  for (const Json& f : audit["failures"]) std::cerr << "  " << f.get<std::string>() << "\n";
  return audit["status"] == "pass" ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  try {
    if (!a.recompute.empty()) return write_audit(a.recompute);
    return a.replay.empty() ? live_audit(a) : replay(a);
  } catch (const std::exception& e) {
    std::cerr << "fusekit-audit: " << e.what() << "\n";
    return 1;
  }
}
