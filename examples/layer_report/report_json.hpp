// The report document: seed 000's sections and field names (test/report checks them against a
// copy of the seed). The seed compared a port with torch; here the `torch_*` fields hold the
// baseline measured in the same run (cuBLASLt's bare GEMM + the same epilogue unfused), and the
// seed's "torch" version is replaced by the device, CUDA and driver versions. Host-only.
#pragma once

#include "fusekit/checkpoint/mapping_report.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace fusekit::layer_report {

inline constexpr const char* kLinears[] = {"qkv_proj", "out_proj", "fc1", "fc2"};

struct LayerResult {
  std::int64_t block = 0, tokens = 0;
  std::string linear;
  bool repeatable = false;
  double rel_err = NAN, baseline_rel_err = NAN;                // vs float64, sampled rows
  std::optional<bool> fused_equals_separate;                   // qkv_proj only
  std::optional<bool> fc1_equals_diffusers_swapped;            // fc1 only
  double fusekit_ms = NAN, baseline_ms = NAN;                  // median per call

  double slowdown() const { return fusekit_ms / baseline_ms; }

  // Seed 000's field order; NaN becomes null (JSON has no NaN).
  nlohmann::ordered_json to_json() const {
    auto optional = [](const std::optional<bool>& b) { return b ? nlohmann::ordered_json(*b) : nlohmann::ordered_json(); };
    auto number = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(); };
    return {{"block", block},
            {"tokens", tokens},
            {"linear", linear},
            {"repeatable", repeatable},
            {"rel_err_vs_fp64", number(rel_err)},
            {"torch_rel_err_vs_fp64", number(baseline_rel_err)},
            {"fused_equals_separate", optional(fused_equals_separate)},
            {"fc1_equals_diffusers_swapped", optional(fc1_equals_diffusers_swapped)},
            {"adapter_ms", number(fusekit_ms)},
            {"torch_ms", number(baseline_ms)},
            {"slowdown", number(slowdown())}};
  }
};

// What the run measured on and how (the seed's "device" and "torch" fields, widened).
struct RunInfo {
  std::string device = "none";
  std::string cuda_runtime = "none", cuda_driver = "none", driver = "unknown";
  std::string checkpoint;
  std::uint64_t input_seed = 0;
  int replays = 0, calls_per_replay = 0;
};

inline nlohmann::ordered_json report_json(const RunInfo& run, const checkpoint::MappingReport& mapping,
                                          const std::vector<LayerResult>& layers,
                                          const std::vector<std::string>& problems) {
  nlohmann::ordered_json doc;
  doc["device"] = run.device;
  doc["cuda_runtime"] = run.cuda_runtime;
  doc["cuda_driver"] = run.cuda_driver;
  doc["driver"] = run.driver;
  doc["baseline"] =
      "torch_* fields: cuBLASLt bare GEMM (bf16, fp32 compute, best heuristic algorithm) followed by the "
      "same epilogue as separate kernels, on the same inputs and weights";
  doc["timing"] = "median over " + std::to_string(run.replays) + " CUDA-graph replays per implementation "
                  "(fusekit and baseline alternating), each replay " + std::to_string(run.calls_per_replay) +
                  " back-to-back calls timed by CUDA events; ms per call";
  doc["checkpoint"] = run.checkpoint;
  doc["input_seed"] = run.input_seed;
  doc["mapping"] = mapping.to_json();
  doc["layers"] = nlohmann::ordered_json::array();
  for (const LayerResult& r : layers) doc["layers"].push_back(r.to_json());
  doc["problems"] = problems;
  return doc;
}

// The short terminal table.
inline std::string layer_table(const std::vector<LayerResult>& layers) {
  std::string s = "block tokens linear     fusekit_ms cublaslt_ms slowdown  rel_err(fk) rel_err(lt) repeat fused=sep fc1=swap\n";
  auto flag = [](const std::optional<bool>& b) { return b ? (*b ? "yes" : "NO") : "-"; };
  for (const LayerResult& r : layers) {
    char line[256];
    std::snprintf(line, sizeof line, "%5lld %6lld %-9s %11.4f %11.4f %8.3f %12.3e %11.3e %6s %9s %8s\n",
                  static_cast<long long>(r.block), static_cast<long long>(r.tokens), r.linear.c_str(), r.fusekit_ms,
                  r.baseline_ms, r.slowdown(), r.rel_err, r.baseline_rel_err, r.repeatable ? "yes" : "NO",
                  flag(r.fused_equals_separate), flag(r.fc1_equals_diffusers_swapped));
    s += line;
  }
  return s;
}

}  // namespace fusekit::layer_report
