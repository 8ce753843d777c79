// benchmark/audit/recording.hpp: an audit directory, written by a live audit and re-checked
// offline by a replay. It holds every raw report, manifest.json and audit.json:
//   manifest.json  {"tool": "fusekit-audit", "format": 1, "options": {...}, "rounds": N,
//                   "reports": [{"side", "round", "file", "sha256"}...],
//                   "artifacts": [{"path", "sha256"}...], "failures": [...]}
// Both a live audit and a replay compute the audit from the directory with audit_directory();
// a replay also checks that it reproduces the recorded audit.json (replay_sha256, audit_sha256).
#pragma once

#include "audit.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fusekit::audit {

inline constexpr int kManifestFormat = 1;

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Written beside `p` and renamed over it: a run that stops midway leaves the old file or the
// new one, never half a file.
inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::path temp = p;
  temp += ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw std::runtime_error("cannot write " + p.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, p, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw std::runtime_error("cannot write " + p.string() + ": " + ec.message());
  }
}

// Prepares `dir` for a live audit: created if missing, and the verdict and manifest of an earlier
// audit there removed first, so an audit that stops before writing its own (a crash, an
// exception) leaves no stale audit.json, perhaps a passing one, beside the new reports.
inline void begin_recording(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const char* name : {"audit.json", "manifest.json"}) std::filesystem::remove(dir / name);
}

inline Json options_json(const AuditOptions& o) {
  return Json{{"filter", o.filter},
              {"reference_impl", o.reference_impl},
              {"candidate_impl", o.candidate_impl},
              {"control_impl", o.control_impl},
              {"min_effect", o.rule.min_effect},
              {"alpha", o.rule.alpha},
              {"drift_band", o.rule.drift_band}};
}

// Throws std::runtime_error naming the field when the manifest does not follow the format.
inline AuditOptions options_from_json(const Json& j) {
  AuditOptions o;
  try {
    o.filter = j.at("filter").get<std::string>();
    o.reference_impl = j.at("reference_impl").get<std::string>();
    o.candidate_impl = j.at("candidate_impl").get<std::string>();
    o.control_impl = j.at("control_impl").get<std::string>();
    o.rule.min_effect = j.at("min_effect").get<double>();
    o.rule.alpha = j.at("alpha").get<double>();
    o.rule.drift_band = j.at("drift_band").get<double>();
  } catch (const Json::exception& e) {
    throw std::runtime_error(std::string("corrupt manifest: options: ") + e.what());
  }
  return o;
}

// Computes the audit of a recorded directory. Report files are checked against the sha256 the
// manifest recorded; other artifacts (binaries, probe script, inputs) are re-hashed when they still
// exist (else current_artifacts_checked is false). A missing or malformed manifest throws.
inline Json audit_directory(const std::filesystem::path& dir) {
  Json manifest;
  try {
    manifest = Json::parse(read_file(dir / "manifest.json"));
  } catch (const Json::exception& e) {
    throw std::runtime_error("corrupt manifest (" + (dir / "manifest.json").string() + "): " + e.what());
  }
  if (!manifest.is_object() || manifest.value("tool", std::string()) != "fusekit-audit" ||
      manifest.value("format", 0) != kManifestFormat)
    throw std::runtime_error("corrupt manifest: not a fusekit-audit manifest of format " + std::to_string(kManifestFormat));
  AuditInput in;
  in.options = options_from_json(manifest.value("options", Json::object()));
  try {
    for (const Json& f : manifest.at("failures")) in.failures.push_back(f.get<std::string>());
    for (const Json& r : manifest.at("reports")) {
      const std::string side = r.at("side").get<std::string>(), file = r.at("file").get<std::string>();
      const std::string recorded = r.at("sha256").get<std::string>();
      const int round = r.at("round").get<int>();
      std::vector<ReportSource>* dst = side == "reference" ? &in.reference
                                       : side == "candidate" ? &in.candidate
                                       : side == "control"   ? &in.control
                                                             : nullptr;
      if (!dst) throw std::runtime_error("corrupt manifest: unknown side \"" + side + "\"");
      if (round != static_cast<int>(dst->size()) + 1)
        throw std::runtime_error("corrupt manifest: " + side + " round " + std::to_string(round) + " out of order");
      std::string text, current;
      try {
        text = read_file(dir / file);
        current = sha256_hex(text);
      } catch (const std::runtime_error&) {
        in.failures.push_back("missing report: " + file);  // its records will be missing too
      }
      dst->push_back({side + " round " + std::to_string(round), text});
      in.artifacts.push_back({file, recorded, current});
    }
    for (const Json& a : manifest.at("artifacts")) {
      Artifact art{a.at("path").get<std::string>(), a.at("sha256").get<std::string>(), ""};
      std::filesystem::path where = art.path;
      if (where.is_relative()) where = dir / where;  // inputs recorded beside the reports
      if (std::filesystem::exists(where)) art.sha256_current = sha256_file(where.string());
      else in.current_artifacts_checked = false;
      in.artifacts.push_back(art);
    }
  } catch (const Json::exception& e) {
    throw std::runtime_error(std::string("corrupt manifest: ") + e.what());
  }
  return build_audit(in);
}

// Replays a recorded audit directory: recomputes the audit and checks it against audit.json.
// The result is the recomputed audit; a mismatch is a failure in it (status "fail").
inline Json replay_directory(const std::filesystem::path& dir) {
  Json recorded;
  std::string problem;
  try {
    recorded = Json::parse(read_file(dir / "audit.json"));
  } catch (const std::exception& e) {
    problem = std::string("corrupt recorded audit: ") + e.what();
  }
  Json audit = audit_directory(dir);
  if (problem.empty() && !audit_hash_matches(recorded)) problem = "corrupt recorded audit: its audit_sha256 does not match its content";
  if (problem.empty() && recorded.value("replay_sha256", std::string()) != audit["replay_sha256"].get<std::string>())
    problem = "replay mismatch: recorded replay_sha256 " + recorded.value("replay_sha256", std::string()) +
              ", recomputed " + audit["replay_sha256"].get<std::string>();
  if (problem.empty() && recorded.value("status", std::string()) != audit["status"].get<std::string>())
    problem = "replay mismatch: recorded status " + recorded.value("status", std::string()) + ", recomputed " +
              audit["status"].get<std::string>();
  audit["replay_of"] = Json{{"audit_sha256", recorded.is_object() ? recorded.value("audit_sha256", std::string()) : ""},
                            {"matches", problem.empty()}};
  if (!problem.empty()) {
    audit["failures"].push_back(problem);
    audit["status"] = "fail";
  }
  Json hashed = audit;
  hashed.erase("audit_sha256");
  audit["audit_sha256"] = sha256_hex(hashed.dump());
  return audit;
}

}  // namespace fusekit::audit
