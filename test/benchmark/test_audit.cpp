// CPU tests of the audit: statistics on hand-checkable inputs (seed 003's own numbers among them),
// the report reader, the audit's fields and verdicts, every failure reason, and the golden
// recorded audit in data/recorded_audit.
#include <doctest/doctest.h>

#include "recording.hpp"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;
using namespace fusekit::audit;

namespace {

const fs::path kData = FUSEKIT_AUDIT_TEST_DATA;

struct Row {
  Row(std::string n, double t = 1, int v = 1, std::string e = "") : name(std::move(n)), us(t), validated(v), error(std::move(e)) {}
  std::string name;  // "<suite>/<op>/<dtype>/<shape>/<impl>/<mode>"
  double us;
  int validated;
  std::string error;  // non-empty: error_occurred
};

// A report in Google Benchmark's JSON shape, as the harness writes it.
std::string report(const std::vector<Row>& rows) {
  nlohmann::json doc{{"context", {{"fusekit_device", "test"}}}, {"benchmarks", nlohmann::json::array()}};
  for (const Row& r : rows) {
    nlohmann::json b{{"name", r.name + "/iterations:15/manual_time"}, {"run_type", "iteration"}, {"iterations", 15},
                     {"real_time", r.us}, {"time_unit", "us"}};
    if (!r.error.empty()) {
      b["error_occurred"] = true;
      b["error_message"] = r.error;
    } else {
      b["us"] = r.us;
      b["validated"] = r.validated;
    }
    doc["benchmarks"].push_back(b);
  }
  return doc.dump();
}

// Seed 003, softmax_37x1537, gpu_throughput: the per-round times of its three sides.
const std::vector<double> kSeedRef{4.0957029341406255, 3.8925782064375, 4.100260412093751, 4.08593768953125};
const std::vector<double> kSeedCand{4.676432581625, 4.365234417484375, 4.565756171359375, 4.956380507796874};
const std::vector<double> kSeedTorch{16.087241419882048, 16.718750885047484, 16.447917005280033, 20.930989194312133};

// An audit input of one case in one mode over the given rounds (all sides validated).
AuditInput one_case(const std::vector<double>& ref, const std::vector<double>& cand, const std::vector<double>& torch,
                    const std::string& mode = "gpu_throughput") {
  AuditInput in;
  const std::string key = "reduce/softmax/bf16/37x1537/";
  for (std::size_t r = 0; r < ref.size(); ++r) {
    const std::string round = " round " + std::to_string(r + 1);
    in.reference.push_back({"reference" + round, report({{key + "fusekit/" + mode, ref[r]}})});
    in.candidate.push_back({"candidate" + round, report({{key + "fusekit/" + mode, cand[r]}})});
    if (!torch.empty()) in.control.push_back({"control" + round, report({{key + "torch/" + mode, torch[r]}})});
  }
  return in;
}

bool has_failure(const Json& audit, const std::string& text) {
  for (const Json& f : audit["failures"])
    if (f.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// A scratch copy of the golden recorded audit, removed afterwards.
struct ScratchCopy {
  fs::path dir;
  ScratchCopy() {
    dir = fs::temp_directory_path() / ("fusekit_audit_test_" + std::to_string(std::rand()) + std::to_string(::getpid()));
    fs::copy(kData / "recorded_audit", dir, fs::copy_options::recursive);
  }
  ~ScratchCopy() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("median, ratios and spread on hand-checkable values") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK_THROWS_AS(median({}), std::invalid_argument);
  CHECK(ratios({2, 9}, {4, 3}) == std::vector<double>{0.5, 3});
  CHECK_THROWS_AS(ratios({1}, {1, 2}), std::invalid_argument);
  const Spread s = spread({1.5, 0.5, 1.0, 2.0});
  CHECK(s.median == 1.25);
  CHECK(s.min == 0.5);
  CHECK(s.max == 2.0);
}

TEST_CASE("Mann-Whitney exact two-sided p-values") {
  // 4 vs 4, fully separated: 1 arrangement of 70 per tail -> 2/70.
  CHECK(mann_whitney_p({1, 2, 3, 4}, {5, 6, 7, 8}) == doctest::Approx(2.0 / 70));
  CHECK(mann_whitney_p({5, 6, 7, 8}, {1, 2, 3, 4}) == doctest::Approx(2.0 / 70));
  // 3 vs 3, separated: 2/20; one swap (U = 1): P(U <= 1) = 2/20 -> 4/20.
  CHECK(mann_whitney_p({1, 2, 3}, {4, 5, 6}) == doctest::Approx(0.1));
  CHECK(mann_whitney_p({1, 2, 4}, {3, 5, 6}) == doctest::Approx(0.2));
  // Interleaved: no evidence.
  CHECK(mann_whitney_p({1, 3, 5, 7}, {2, 4, 6, 8}) > 0.5);
  CHECK(mann_whitney_p({1, 1, 1}, {1, 1, 1}) == 1.0);  // all ties
  CHECK(mann_whitney_p({}, {1}) == 1.0);
}

TEST_CASE("verdicts need an effect and significance; drift makes NOISY") {
  const VerdictRule rule;  // 3 % effect, alpha 0.05, drift band 25 %
  CHECK(decide({1.10, 0.03, false}, rule) == Verdict::faster);
  CHECK(decide({0.90, 0.03, false}, rule) == Verdict::slower);
  CHECK(decide({1.10, 0.20, false}, rule) == Verdict::noisy);  // large effect, not significant
  CHECK(decide({1.01, 0.03, false}, rule) == Verdict::same);   // significant, but under 3 %
  CHECK(decide({1.01, 0.90, false}, rule) == Verdict::same);
  CHECK(decide({1.50, 0.01, true}, rule) == Verdict::noisy);   // the control drifted
  CHECK(std::string(verdict_name(Verdict::faster)) == "FASTER");
  CHECK_FALSE(drifts({10, 11, 9, 10}, 0.25));
  CHECK(drifts({10, 13, 10, 10}, 0.25));  // 13 > 10 * 1.25
  CHECK(drifts({10, 7.9, 10, 10}, 0.25));  // 7.9 < 10 / 1.25
}

TEST_CASE("a record reproduces seed 003's softmax_37x1537 gpu_throughput numbers") {
  const Json a = build_audit(one_case(kSeedRef, kSeedCand, kSeedTorch));
  REQUIRE(a["status"] == "pass");
  const Json& m = a["records"][0]["gpu_throughput"];
  CHECK(a["records"][0]["name"] == "reduce/softmax/bf16/37x1537");
  CHECK(m["reference_us"].get<double>() == doctest::Approx(4.090820311835937).epsilon(1e-12));
  CHECK(m["candidate_us"].get<double>() == doctest::Approx(4.621094376492188).epsilon(1e-12));
  CHECK(m["torch_us"].get<double>() == doctest::Approx(16.58333394516376).epsilon(1e-12));
  CHECK(m["gain"].get<double>() == doctest::Approx(0.8837702066605939).epsilon(1e-12));
  CHECK(m["gain_min"].get<double>() == doctest::Approx(0.824379339540955).epsilon(1e-12));
  CHECK(m["gain_max"].get<double>() == doctest::Approx(0.8980462946782742).epsilon(1e-12));
  CHECK(m["native_torch_ratio"].get<double>() == doctest::Approx(0.2693434180534514).epsilon(1e-12));
  CHECK(m["ratio_min"].get<double>() == doctest::Approx(0.2367962862043682).epsilon(1e-12));
  CHECK(m["ratio_max"].get<double>() == doctest::Approx(0.2906920123574106).epsilon(1e-12));
  // Separated rounds, 12 % slower, but torch's last round is 27 % over its median: NOISY, not SLOWER.
  CHECK(m["p_value"].get<double>() == doctest::Approx(2.0 / 70));
  CHECK(m["control_drift"] == true);
  CHECK(m["verdict"] == "NOISY");
  const Json& s = a["summaries"]["gpu_throughput"];
  CHECK(s["positive_medians"] == 0);
  CHECK(s["all_pairs_positive"] == 0);
  CHECK(s["all_pairs_negative"] == 1);
  CHECK(s["faster_torch_all_pairs"] == 1);
  CHECK(s["NOISY"] == 1);
  CHECK(a["executed_output_validations"] == 12);  // 3 sides x 4 rounds x 1 run
  CHECK(a["replay_pairs"] == 1);
  const double torch_median = 16.58333394516376;
  CHECK(a["torch_probe_control_ratio_range"][0].get<double>() == doctest::Approx(16.087241419882048 / torch_median));
  CHECK(a["torch_probe_control_ratio_range"][1].get<double>() == doctest::Approx(20.930989194312133 / torch_median));
  // With a wider drift band the same rounds give SLOWER.
  AuditInput wide = one_case(kSeedRef, kSeedCand, kSeedTorch);
  wide.options.rule.drift_band = 0.5;
  CHECK(build_audit(wide)["records"][0]["gpu_throughput"]["verdict"] == "SLOWER");
}

TEST_CASE("the audit has seed 003's fields, in its order, and hashes itself") {
  const Json a = build_audit(one_case({10, 10.2, 9.9, 10.1}, {8, 8.1, 7.9, 8.05}, {20, 20.5, 19.8, 20.1}));
  const std::vector<std::string> seed_order{"status", "audit_sha256", "source_reports_sha256", "replay_sha256",
                                            "executed_output_validations", "replay_pairs", "recorded_unchanged_artifacts",
                                            "current_artifacts_checked", "torch_probe_control_ratio_range", "summaries",
                                            "records"};
  std::vector<std::string> keys;
  for (auto it = a.begin(); it != a.end(); ++it) keys.push_back(it.key());
  REQUIRE(keys.size() >= seed_order.size());
  CHECK(std::vector<std::string>(keys.begin(), keys.begin() + seed_order.size()) == seed_order);
  for (const char* side : {"reference", "candidate"}) CHECK(a["source_reports_sha256"][side].get<std::string>().size() == 64);
  const Json& m = a["records"][0]["gpu_throughput"];
  for (const char* f : {"reference_us", "candidate_us", "torch_us", "reference_rounds_us", "candidate_rounds_us",
                        "torch_rounds_us", "gain", "gain_min", "gain_max", "native_torch_ratio", "ratio_min", "ratio_max",
                        "p_value", "control_drift", "verdict"})
    CHECK_MESSAGE(m.contains(f), f);
  CHECK(m["verdict"] == "FASTER");
  CHECK(audit_hash_matches(a));
  Json tampered = a;
  tampered["records"][0]["gpu_throughput"]["gain"] = 9.0;
  CHECK_FALSE(audit_hash_matches(tampered));
  // Same inputs, same hashes.
  const Json b = build_audit(one_case({10, 10.2, 9.9, 10.1}, {8, 8.1, 7.9, 8.05}, {20, 20.5, 19.8, 20.1}));
  CHECK(a["audit_sha256"] == b["audit_sha256"]);
  CHECK(a["replay_sha256"] == b["replay_sha256"]);
}

TEST_CASE("without a control the torch fields are null and no drift applies") {
  const Json a = build_audit(one_case({10, 10.2, 9.9, 10.1}, {8, 8.1, 7.9, 8.05}, {}));
  CHECK(a["status"] == "pass");
  CHECK(a["torch_probe_control_ratio_range"].is_null());
  CHECK(a["records"][0]["gpu_throughput"]["native_torch_ratio"].is_null());
  CHECK(a["records"][0]["gpu_throughput"]["verdict"] == "FASTER");
}

TEST_CASE("reports: repetitions reduce to their median, aggregates are ignored") {
  nlohmann::json doc{{"benchmarks",
                      {{{"name", "s/o/d/1x1/i/gpu_latency/repeats:3"}, {"us", 3.0}, {"validated", 1}},
                       {{"name", "s/o/d/1x1/i/gpu_latency/repeats:3"}, {"us", 1.0}, {"validated", 1}},
                       {{"name", "s/o/d/1x1/i/gpu_latency/repeats:3"}, {"us", 2.0}, {"validated", 1}},
                       {{"name", "s/o/d/1x1/i/gpu_latency/repeats:3_mean"}, {"run_type", "aggregate"}, {"us", 2.0}}}}};
  const Report r = parse_report(doc.dump(), "test", "");
  REQUIRE(r.runs.size() == 1);
  const Run& run = r.runs.at("s/o/d/1x1/i/gpu_latency");
  CHECK(run.us == 2.0);
  CHECK(run.executed_validations == 3);
  CHECK(run.ok);
  CHECK(run.case_key == "s/o/d/1x1");
}

TEST_CASE("corrupt reports are rejected with the reason") {
  auto reason = [](const std::string& text) {
    try {
      parse_report(text, "candidate round 2", "");
    } catch (const CorruptReport& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(reason("{not json").find("not JSON") != std::string::npos);
  CHECK(reason("{\"context\": {}}").find("no \"benchmarks\" array") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"us": 1}]})").find("no name") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c", "us": 1, "validated": 1}]})").find("is not <suite>") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/warm", "us": 1, "validated": 1}]})").find("unknown mode") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "validated": 1}]})").find("no \"us\"") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "us": -1, "validated": 1}]})").find("not positive") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "us": "3", "validated": 1}]})").find("finite") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "us": 1, "validated": 2}]})").find("neither 0 nor 1") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "us": 1, "validated": 1}]})") == "accepted");
  CHECK(reason("").find("candidate round 2") != std::string::npos);  // the report is named
  // Fields of the wrong JSON type: a corrupt report, not a json::type_error escaping the audit.
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "run_type": 5, "us": 1, "validated": 1}]})")
            .find("benchmark 0: \"run_type\" is not a string") != std::string::npos);
  CHECK(reason(R"({"benchmarks": [{"name": "a/b/c/d/e/gpu_latency", "error_occurred": true, "error_message": 123}]})")
            .find("benchmark 0: \"error_message\" is not a string") != std::string::npos);
}

TEST_CASE("every failure reason fails the status") {
  const std::string key = "reduce/softmax/bf16/37x1537/";
  SUBCASE("failed validation (validated = 0, and a run that reported an error)") {
    AuditInput in = one_case({1, 1}, {1, 1}, {2, 2});
    in.candidate[1].text = report({{key + "fusekit/gpu_throughput", 1, 0}});
    in.control[0].text = report({{key + "torch/gpu_throughput", 1, 1, "validation failed: rel_err 0.5"}});
    const Json a = build_audit(in);
    CHECK(a["status"] == "fail");
    CHECK(has_failure(a, "failed validation: " + key + "fusekit/gpu_throughput in candidate round 2: validated = 0"));
    CHECK(has_failure(a, "failed validation: " + key + "torch/gpu_throughput in control round 1: validation failed"));
  }
  SUBCASE("missing record") {
    AuditInput in = one_case({1, 1}, {1, 1}, {2, 2});
    in.candidate[0].text = report({});
    in.control[1].text = report({{key + "torch/gpu_latency", 1}});
    const Json a = build_audit(in);
    CHECK(has_failure(a, "missing record: " + key + "gpu_throughput (fusekit) in candidate round 1"));
    CHECK(has_failure(a, "missing record: " + key + "gpu_throughput (torch) in control round 2"));
  }
  SUBCASE("extra record") {
    AuditInput in = one_case({1, 1}, {1, 1}, {});
    in.candidate[1].text = report({{key + "fusekit/gpu_throughput", 1}, {key + "fusekit/e2e_latency", 1}});
    CHECK(has_failure(build_audit(in), "extra record: " + key + "fusekit/e2e_latency in candidate round 2"));
  }
  SUBCASE("corrupt report") {
    AuditInput in = one_case({1, 1}, {1, 1}, {});
    in.reference[1].text = "{\"benchmarks\": 7}";
    const Json a = build_audit(in);
    CHECK(a["status"] == "fail");
    CHECK(has_failure(a, "corrupt report (reference round 2)"));
  }
  SUBCASE("a report field of the wrong type is a corrupt report, recorded as a failure") {
    AuditInput in = one_case({1, 1}, {1, 1}, {});
    nlohmann::json doc = nlohmann::json::parse(in.candidate[1].text);
    doc["benchmarks"][0]["run_type"] = 5;
    in.candidate[1].text = doc.dump();
    Json a;
    REQUIRE_NOTHROW(a = build_audit(in));
    CHECK(a["status"] == "fail");
    CHECK(has_failure(a, "corrupt report (candidate round 2), benchmark 0: \"run_type\" is not a string"));
  }
  SUBCASE("changed artifact") {
    AuditInput in = one_case({1, 1}, {1, 1}, {});
    in.artifacts = {{"bench_a", "aaaa", "aaaa"}, {"bench_b", "bbbb", "cccc"}, {"gone", "dddd", ""}};
    const Json a = build_audit(in);
    CHECK(has_failure(a, "changed artifact: bench_b (sha256 bbbb at start, cccc now)"));
    CHECK(a["recorded_unchanged_artifacts"] == 1);
  }
  SUBCASE("round count mismatch, empty selection, bad filter, failures found earlier") {
    AuditInput in = one_case({1, 1}, {1, 1}, {});
    in.candidate.pop_back();
    CHECK(has_failure(build_audit(in), "round count mismatch: candidate has 1 reports, reference has 2"));
    AuditInput none = one_case({1, 1}, {1, 1}, {});
    none.options.filter = "gemm/";
    CHECK(has_failure(build_audit(none), "no records selected"));
    AuditInput bad = one_case({1, 1}, {1, 1}, {});
    bad.options.filter = "(";
    CHECK(has_failure(build_audit(bad), "bad filter"));
    AuditInput earlier = one_case({1, 1}, {1, 1}, {});
    earlier.failures.push_back("candidate round 1 exited with 139");
    CHECK(build_audit(earlier)["status"] == "fail");
  }
  SUBCASE("different impls on the two sides select their own rows") {
    AuditInput in;
    for (int r = 0; r < 2; ++r) {
      const std::string both = report({{key + "plain/gpu_latency", 2.0}, {key + "fusekit/gpu_latency", 1.0}});
      in.reference.push_back({"reference round " + std::to_string(r + 1), both});
      in.candidate.push_back({"candidate round " + std::to_string(r + 1), both});
    }
    in.options.reference_impl = "plain";
    const Json a = build_audit(in);
    CHECK(a["status"] == "pass");
    CHECK(a["records"][0]["gpu_latency"]["gain"] == 2.0);
  }
}

TEST_CASE("golden: the recorded audit reproduces exactly and replays") {
  const Json recomputed = audit_directory(kData / "recorded_audit");
  const std::string golden = read_file(kData / "recorded_audit" / "audit.json");
  CHECK(recomputed.dump(2) + "\n" == golden);
  CHECK(recomputed["status"] == "pass");
  CHECK(recomputed["records"][0]["gpu_throughput"]["verdict"] == "FASTER");  // softmax: candidate 20 % faster
  CHECK(recomputed["records"][1]["gpu_throughput"]["verdict"] == "SAME");    // rms_norm: within 1 %
  CHECK(recomputed["recorded_unchanged_artifacts"] == 13);                   // 12 reports and one input
  const Json replay = replay_directory(kData / "recorded_audit");
  CHECK(replay["status"] == "pass");
  CHECK(replay["replay_of"]["matches"] == true);
}

TEST_CASE("replay catches changed reports, inputs and recorded audits") {
  SUBCASE("a report edited after recording") {
    ScratchCopy c;
    std::string text = read_file(c.dir / "round2_candidate.json");
    text.replace(text.find("\"us\": "), 6, "\"us\":  ");  // same numbers, different bytes
    write_file(c.dir / "round2_candidate.json", text);
    const Json r = replay_directory(c.dir);
    CHECK(r["status"] == "fail");
    CHECK(has_failure(r, "changed artifact: round2_candidate.json"));
    CHECK(has_failure(r, "replay mismatch"));  // the status no longer matches the recording
  }
  SUBCASE("an input edited after recording") {
    ScratchCopy c;
    write_file(c.dir / "inputs.txt", "changed\n");
    CHECK(has_failure(replay_directory(c.dir), "changed artifact: inputs.txt"));
  }
  SUBCASE("an input gone: not checked, not failed") {
    ScratchCopy c;
    fs::remove(c.dir / "inputs.txt");
    const Json r = replay_directory(c.dir);
    CHECK(r["current_artifacts_checked"] == false);
  }
  SUBCASE("a recorded audit edited by hand") {
    ScratchCopy c;
    Json a = Json::parse(read_file(c.dir / "audit.json"));
    a["records"][0]["gpu_throughput"]["verdict"] = "SLOWER";
    write_file(c.dir / "audit.json", a.dump(2));
    CHECK(has_failure(replay_directory(c.dir), "corrupt recorded audit: its audit_sha256 does not match"));
  }
  SUBCASE("a corrupt manifest throws with the reason") {
    ScratchCopy c;
    write_file(c.dir / "manifest.json", "{\"tool\": \"something else\"}");
    CHECK_THROWS_WITH(audit_directory(c.dir), doctest::Contains("not a fusekit-audit manifest"));
    write_file(c.dir / "manifest.json", "[");
    CHECK_THROWS_WITH(audit_directory(c.dir), doctest::Contains("corrupt manifest"));
  }
}

TEST_CASE("a live audit into a reused directory starts without the earlier verdict") {
  ScratchCopy c;  // a recorded, passing audit
  REQUIRE(fs::exists(c.dir / "audit.json"));
  begin_recording(c.dir);
  // Stopped now (a crash, a throw), the directory holds no passing audit.json beside new reports.
  CHECK_FALSE(fs::exists(c.dir / "audit.json"));
  CHECK_FALSE(fs::exists(c.dir / "manifest.json"));
  CHECK_THROWS_WITH(replay_directory(c.dir), doctest::Contains("manifest"));
  begin_recording(c.dir / "fresh/sub");  // a new directory is created
  CHECK(fs::is_directory(c.dir / "fresh/sub"));
  write_file(c.dir / "fresh/sub/audit.json", "{}\n");  // written whole, no temporary left
  CHECK(read_file(c.dir / "fresh/sub/audit.json") == "{}\n");
  CHECK(std::distance(fs::directory_iterator(c.dir / "fresh/sub"), fs::directory_iterator()) == 1);
}
