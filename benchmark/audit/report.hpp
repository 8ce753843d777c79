// benchmark/audit/report.hpp: reads one Google Benchmark JSON report written by a fusekit
// benchmark (or by benchmark/torch_probe.py) into runs keyed by case and mode.
//
// Run names are "<suite>/<op>/<dtype>/<shape>/<impl>/<mode>" followed by whatever Google
// Benchmark appends ("/iterations:15/manual_time"). Repetitions of one run are reduced to their
// median; aggregate rows (mean, median, stddev) are ignored.
#pragma once

#include "statistics.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusekit::audit {

inline const std::set<std::string>& known_modes() {
  static const std::set<std::string> modes{"gpu_throughput", "gpu_latency", "e2e_throughput", "e2e_latency"};
  return modes;
}

// A report that cannot be read as a benchmark report.
struct CorruptReport : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Run {
  std::string case_key;  // "<suite>/<op>/<dtype>/<shape>"
  std::string impl, mode;
  double us = 0;               // the harness's "us" counter: median time per call
  int executed_validations = 0;  // rows (repetitions) whose validation ran and passed
  bool ok = true;              // every repetition validated and none reported an error
  std::string error;           // why not ok
  std::string full_name() const { return case_key + "/" + impl + "/" + mode; }
};

struct Report {
  std::string label;   // "reference round 1", ...
  std::string sha256;  // of the report's bytes
  nlohmann::json context;
  std::map<std::string, Run> runs;  // by full_name(); ordered, so reports compare deterministically
  std::vector<std::string> order;   // full names in the order of the report
};

namespace detail {

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// An optional string field: `fallback` when absent, CorruptReport when present but not a string
// (json::value would throw its own type_error, which the audit does not record as a corrupt report).
inline std::string string_field(const nlohmann::json& row, const char* key, const std::string& fallback,
                                const std::string& where) {
  if (!row.contains(key)) return fallback;
  if (!row.at(key).is_string()) throw CorruptReport(where + ": \"" + key + "\" is not a string");
  return row.at(key).get<std::string>();
}

inline double finite_number(const nlohmann::json& row, const char* key, const std::string& where) {
  if (!row.contains(key)) throw CorruptReport(where + ": no \"" + key + "\"");
  const nlohmann::json& v = row.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw CorruptReport(where + ": \"" + key + "\" is not a finite number");
  return v.get<double>();
}

// parse_report without its guard.
inline Report parse_report_unguarded(const std::string& text, const std::string& label, const std::string& sha256) {
  Report r;
  r.label = label;
  r.sha256 = sha256;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw CorruptReport("corrupt report (" + label + "): not JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw CorruptReport("corrupt report (" + label + "): no \"benchmarks\" array");
  r.context = doc.value("context", nlohmann::json::object());
  std::map<std::string, std::vector<double>> repetitions;
  std::size_t index = 0;
  for (const nlohmann::json& row : doc["benchmarks"]) {
    const std::string where = "corrupt report (" + label + "), benchmark " + std::to_string(index++);
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string()) throw CorruptReport(where + ": no name");
    if (detail::string_field(row, "run_type", "iteration", where) == "aggregate") continue;
    const std::string name = row["name"].get<std::string>();
    const std::vector<std::string> parts = detail::split(name, '/');
    if (parts.size() < 6) throw CorruptReport(where + ": name \"" + name + "\" is not <suite>/<op>/<dtype>/<shape>/<impl>/<mode>");
    for (std::size_t i = 0; i < 6; ++i)
      if (parts[i].empty()) throw CorruptReport(where + ": name \"" + name + "\" has an empty part");
    if (!known_modes().count(parts[5])) throw CorruptReport(where + ": unknown mode \"" + parts[5] + "\"");
    Run run;
    run.case_key = parts[0] + "/" + parts[1] + "/" + parts[2] + "/" + parts[3];
    run.impl = parts[4];
    run.mode = parts[5];
    const bool error = row.contains("error_occurred") && row["error_occurred"].is_boolean() && row["error_occurred"].get<bool>();
    const std::string key = run.full_name();
    if (error) {
      run.ok = false;
      run.error = detail::string_field(row, "error_message", "error_occurred without a message", where);
    } else {
      const double us = detail::finite_number(row, "us", where);
      if (!(us > 0)) throw CorruptReport(where + ": \"us\" is not positive");
      const double validated = detail::finite_number(row, "validated", where);
      if (validated != 0 && validated != 1) throw CorruptReport(where + ": \"validated\" is neither 0 nor 1");
      repetitions[key].push_back(us);
      if (validated == 1) {
        run.executed_validations = 1;
      } else {
        run.ok = false;
        run.error = "validated = 0";
      }
    }
    auto [it, inserted] = r.runs.emplace(key, run);
    if (inserted) {
      r.order.push_back(key);
    } else {  // another repetition of the same run
      it->second.executed_validations += run.executed_validations;
      if (!run.ok && it->second.ok) {
        it->second.ok = false;
        it->second.error = run.error;
      }
    }
  }
  for (auto& [key, run] : r.runs) {
    const std::vector<double>& v = repetitions[key];
    if (!v.empty()) run.us = median(v);  // empty: every repetition failed, and `ok` is false
  }
  return r;
}

}  // namespace detail

// Throws CorruptReport, naming the report and the row, on anything that is not a well-formed
// fusekit benchmark report: not JSON, no "benchmarks" array, a name not in the six-part form, an
// unknown mode, a successful row without a finite positive "us" or a 0/1 "validated", a
// "run_type" or "error_message" that is not a string. Any other JSON access error is a corrupt
// report too, never a json exception the audit would not record.
inline Report parse_report(const std::string& text, const std::string& label, const std::string& sha256) {
  try {
    return detail::parse_report_unguarded(text, label, sha256);
  } catch (const nlohmann::json::exception& e) {
    throw CorruptReport("corrupt report (" + label + "): " + e.what());
  }
}

}  // namespace fusekit::audit
