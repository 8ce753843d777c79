// benchmark/audit/audit.hpp: the reference-vs-candidate audit computed from recorded reports.
//
// Input: one report per round for the reference build, the candidate build and (optionally) the
// torch probe as a control. Output: seed 003's JSON (status, hashes, counts, summaries per mode,
// records with per-round times, gains and torch ratios), plus a verdict per record and mode and
// the reasons for a failed status. docs/benchmarks.md defines every field.
#pragma once

#include "report.hpp"
#include "sha256.hpp"
#include "statistics.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fusekit::audit {

using Json = nlohmann::ordered_json;  // keeps the documented field order in the output

// The order of modes in records and summaries (seed 003's).
inline const std::vector<std::string>& audit_modes() {
  static const std::vector<std::string> modes{"gpu_throughput", "e2e_throughput", "gpu_latency", "e2e_latency"};
  return modes;
}

struct ReportSource {
  std::string label;  // "reference round 1"
  std::string text;   // the report's bytes
};

struct Artifact {
  std::string path;
  std::string sha256_recorded;  // when the audit started
  std::string sha256_current;   // when it ended; empty when the file could not be checked
};

struct AuditOptions {
  // ECMAScript regex searched in "<suite>/<op>/<dtype>/<shape>/<impl>/<mode>"; empty: all. The
  // binaries get it as POSIX extended (binary_filter in main.cpp; docs/benchmarks.md).
  std::string filter;
  std::string reference_impl = "fusekit", candidate_impl = "fusekit", control_impl = "torch";
  VerdictRule rule;
};

struct AuditInput {
  AuditOptions options;
  std::vector<ReportSource> reference, candidate, control;  // one per round; control empty: no control
  std::vector<Artifact> artifacts;
  bool current_artifacts_checked = true;
  std::vector<std::string> failures;  // found before the reports were read (a binary failed, ...)
};

namespace detail {

struct Side {
  std::string name, impl;
  std::vector<std::optional<Report>> rounds;  // nullopt: corrupt
};

inline bool selected(const Run& run, const std::string& impl, const std::regex* filter) {
  return run.impl == impl && (!filter || std::regex_search(run.full_name(), *filter));
}

inline std::string case_mode(const Run& run) { return run.case_key + "/" + run.mode; }

inline Json number_or_null(bool present, double v) { return present ? Json(v) : Json(nullptr); }

}  // namespace detail

inline Json build_audit(const AuditInput& in) {
  using detail::Side;
  std::vector<std::string> failures = in.failures;
  std::unique_ptr<std::regex> filter;
  if (!in.options.filter.empty()) {
    try {
      filter = std::make_unique<std::regex>(in.options.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      failures.push_back("bad filter \"" + in.options.filter + "\": " + e.what());
    }
  }
  const bool with_control = !in.control.empty();
  std::vector<Side> sides{{"reference", in.options.reference_impl, {}}, {"candidate", in.options.candidate_impl, {}}};
  if (with_control) sides.push_back({"control", in.options.control_impl, {}});
  const std::vector<const std::vector<ReportSource>*> sources{&in.reference, &in.candidate, &in.control};
  Json reports = Json::array();
  for (std::size_t s = 0; s < sides.size(); ++s) {
    for (const ReportSource& src : *sources[s]) {
      const std::string sha = sha256_hex(src.text);
      reports.push_back(Json{{"label", src.label}, {"sha256", sha}});
      try {
        sides[s].rounds.emplace_back(parse_report(src.text, src.label, sha));
      } catch (const CorruptReport& e) {
        failures.push_back(e.what());
        sides[s].rounds.emplace_back(std::nullopt);
      }
    }
  }
  const std::size_t rounds = in.reference.size();
  if (rounds == 0) failures.push_back("no rounds: the reference side has no report");
  for (const Side& side : sides)
    if (side.rounds.size() != rounds)
      failures.push_back("round count mismatch: " + side.name + " has " + std::to_string(side.rounds.size()) +
                         " reports, reference has " + std::to_string(rounds));

  // The expected (case, mode) pairs: those selected in the first readable reference report.
  std::vector<std::string> case_order;
  std::set<std::string> expected;
  for (const auto& r : sides[0].rounds) {
    if (!r) continue;
    for (const std::string& key : r->order) {
      const Run& run = r->runs.at(key);
      if (!detail::selected(run, sides[0].impl, filter.get())) continue;
      expected.insert(detail::case_mode(run));
      if (std::find(case_order.begin(), case_order.end(), run.case_key) == case_order.end()) case_order.push_back(run.case_key);
    }
    break;
  }
  if (expected.empty() && rounds > 0) failures.push_back("no records selected: no reference run matches the filter and impl");

  // Every report must hold exactly the expected pairs (the control may hold more), each validated.
  long long executed_validations = 0;
  for (const Side& side : sides) {
    for (const auto& r : side.rounds) {
      if (!r) continue;
      std::set<std::string> seen;
      for (const std::string& key : r->order) {
        const Run& run = r->runs.at(key);
        if (!detail::selected(run, side.impl, filter.get())) continue;
        const std::string cm = detail::case_mode(run);
        if (!expected.count(cm)) {
          if (side.name != "control") failures.push_back("extra record: " + run.full_name() + " in " + r->label);
          continue;
        }
        seen.insert(cm);
        executed_validations += run.executed_validations;
        if (!run.ok) failures.push_back("failed validation: " + run.full_name() + " in " + r->label + ": " + run.error);
      }
      for (const std::string& cm : expected)
        if (!seen.count(cm)) failures.push_back("missing record: " + cm + " (" + side.impl + ") in " + r->label);
    }
  }

  // Records: per case and mode, the rounds in which every side has a usable time.
  auto time_of = [&](const Side& side, std::size_t round, const std::string& case_key, const std::string& mode,
                     double& us) {
    if (round >= side.rounds.size() || !side.rounds[round]) return false;
    const auto it = side.rounds[round]->runs.find(case_key + "/" + side.impl + "/" + mode);
    if (it == side.rounds[round]->runs.end() || !(it->second.us > 0)) return false;
    us = it->second.us;
    return true;
  };
  Json records = Json::array();
  std::map<std::string, Json> summaries;
  for (const std::string& mode : audit_modes())
    summaries[mode] = Json{{"positive_medians", 0}, {"all_pairs_positive", 0}, {"all_pairs_negative", 0},
                           {"faster_torch_all_pairs", 0}, {"FASTER", 0}, {"SLOWER", 0}, {"SAME", 0}, {"NOISY", 0}};
  long long replay_pairs = 0;
  double control_min = std::numeric_limits<double>::infinity(), control_max = -control_min;
  for (const std::string& case_key : case_order) {
    Json record{{"name", case_key}};
    for (const std::string& mode : audit_modes()) {
      if (!expected.count(case_key + "/" + mode)) continue;
      std::vector<double> ref, cand, torch;
      for (std::size_t r = 0; r < rounds; ++r) {
        double a = 0, b = 0, c = 0;
        if (!time_of(sides[0], r, case_key, mode, a) || !time_of(sides[1], r, case_key, mode, b)) continue;
        if (with_control && !time_of(sides[2], r, case_key, mode, c)) continue;
        ref.push_back(a);
        cand.push_back(b);
        if (with_control) torch.push_back(c);
      }
      if (ref.empty()) continue;  // its failure is already listed
      ++replay_pairs;
      const Spread gain = spread(ratios(ref, cand));
      Json m{{"reference_us", median(ref)}, {"candidate_us", median(cand)},
             {"torch_us", detail::number_or_null(with_control, with_control ? median(torch) : 0)},
             {"reference_rounds_us", ref}, {"candidate_rounds_us", cand}, {"torch_rounds_us", torch},
             {"gain", gain.median}, {"gain_min", gain.min}, {"gain_max", gain.max}};
      bool drift = false;
      if (with_control) {
        const Spread ratio = spread(ratios(cand, torch));
        m["native_torch_ratio"] = ratio.median;
        m["ratio_min"] = ratio.min;
        m["ratio_max"] = ratio.max;
        const double tm = median(torch);
        for (double t : torch) {
          control_min = std::min(control_min, t / tm);
          control_max = std::max(control_max, t / tm);
        }
        drift = drifts(torch, in.options.rule.drift_band);
        if (ratio.max < 1) summaries[mode]["faster_torch_all_pairs"] = summaries[mode]["faster_torch_all_pairs"].get<int>() + 1;
      } else {
        m["native_torch_ratio"] = nullptr;
        m["ratio_min"] = nullptr;
        m["ratio_max"] = nullptr;
      }
      const double p = mann_whitney_p(ref, cand);
      const Verdict v = decide({gain.median, p, drift}, in.options.rule);
      m["p_value"] = p;
      m["control_drift"] = drift;
      m["verdict"] = verdict_name(v);
      Json& sum = summaries[mode];
      auto bump = [&](const char* k) { sum[k] = sum[k].get<int>() + 1; };
      if (gain.median > 1) bump("positive_medians");
      if (gain.min > 1) bump("all_pairs_positive");
      if (gain.max < 1) bump("all_pairs_negative");
      bump(verdict_name(v));
      record[mode] = std::move(m);
    }
    records.push_back(std::move(record));
  }

  int unchanged = 0;
  for (const Artifact& a : in.artifacts) {
    if (a.sha256_current.empty()) continue;
    if (a.sha256_current == a.sha256_recorded) ++unchanged;
    else failures.push_back("changed artifact: " + a.path + " (sha256 " + a.sha256_recorded + " at start, " + a.sha256_current + " now)");
  }

  auto side_hash = [&](const std::vector<ReportSource>& src) {
    std::string digests;
    for (const ReportSource& s : src) digests += sha256_hex(s.text) + "\n";
    return sha256_hex(digests);
  };
  Json out;
  out["status"] = failures.empty() ? "pass" : "fail";
  out["audit_sha256"] = "";
  out["source_reports_sha256"] = Json{{"reference", side_hash(in.reference)}, {"candidate", side_hash(in.candidate)}};
  if (with_control) out["source_reports_sha256"]["control"] = side_hash(in.control);
  out["replay_sha256"] = sha256_hex(records.dump());
  out["executed_output_validations"] = executed_validations;
  out["replay_pairs"] = replay_pairs;
  out["recorded_unchanged_artifacts"] = unchanged;
  out["current_artifacts_checked"] = in.current_artifacts_checked;
  out["torch_probe_control_ratio_range"] =
      with_control && control_min <= control_max ? Json::array({control_min, control_max}) : Json(nullptr);
  Json sum_json;
  for (const std::string& mode : audit_modes()) sum_json[mode] = summaries[mode];
  out["summaries"] = std::move(sum_json);
  out["records"] = std::move(records);
  out["failures"] = failures;
  out["rounds"] = rounds;
  out["options"] = Json{{"filter", in.options.filter},
                        {"reference_impl", in.options.reference_impl},
                        {"candidate_impl", in.options.candidate_impl},
                        {"control_impl", with_control ? Json(in.options.control_impl) : Json(nullptr)},
                        {"min_effect", in.options.rule.min_effect},
                        {"alpha", in.options.rule.alpha},
                        {"drift_band", in.options.rule.drift_band}};
  out["reports"] = std::move(reports);
  Json hashed = out;
  hashed.erase("audit_sha256");
  out["audit_sha256"] = sha256_hex(hashed.dump());
  return out;
}

// The audit with its own hash checked: recomputes audit_sha256 over everything but that field.
inline bool audit_hash_matches(const Json& audit) {
  if (!audit.is_object() || !audit.contains("audit_sha256") || !audit["audit_sha256"].is_string()) return false;
  Json hashed = audit;
  hashed.erase("audit_sha256");
  return sha256_hex(hashed.dump()) == audit["audit_sha256"].get<std::string>();
}

}  // namespace fusekit::audit
