// fusekit/checkpoint/mapping_report.hpp: the seed report's `mapping` section: counts from the
// plan, and a timed round trip (checkpoint -> native -> checkpoint) compared bit for bit.
#pragma once

#include "fusekit/checkpoint/convert.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <string>

namespace fusekit::checkpoint {

struct MappingReport {
  std::size_t checkpoint_tensors = 0, native_tensors = 0, unique_native_names = 0, groups = 0;
  bool roundtrip_bitwise = false;
  double map_seconds = 0, inverse_seconds = 0;

  nlohmann::ordered_json to_json() const {
    return {{"checkpoint_tensors", checkpoint_tensors}, {"native_tensors", native_tensors},
            {"unique_native_names", unique_native_names}, {"groups", groups},
            {"roundtrip_bitwise", roundtrip_bitwise}, {"map_seconds", map_seconds},
            {"inverse_seconds", inverse_seconds}};
  }
};

// Counts of a plan from a checkpoint layout to native.
inline MappingReport plan_counts(const Plan& to_native) {
  MappingReport r;
  r.checkpoint_tensors = to_native.inputs().size();
  r.native_tensors = to_native.outputs().size();
  std::set<std::string> names;
  for (const TensorSpec* t : to_native.outputs()) names.insert(t->name);
  r.unique_native_names = names.size();
  r.groups = to_native.groups.size();
  return r;
}

// Maps the checkpoint at `in_path` to native in `work_dir`/native, back in `work_dir`/back,
// and compares the result with the input. Times include opening and validating the input.
inline Status measure_roundtrip(const std::string& in_path, const Plan& to_native, const std::string& work_dir,
                                const ConvertOptions& opt, MappingReport& report) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
  MappingReport r = plan_counts(to_native);
  const std::string native_dir = work_dir + "/native", back_dir = work_dir + "/back";

  auto t0 = clock::now();
  {
    Checkpoint in;
    FUSEKIT_TRY(Checkpoint::open(in_path, in));
    FUSEKIT_TRY(check_output_apart(in, back_dir));  // the way back must not overwrite the input either
    FUSEKIT_TRY(convert(in, to_native, native_dir, opt));
  }
  r.map_seconds = seconds(t0);

  t0 = clock::now();
  {
    Checkpoint native;
    FUSEKIT_TRY(Checkpoint::open(native_dir, native));
    FUSEKIT_TRY(convert(native, inverse(to_native), back_dir, opt));
  }
  r.inverse_seconds = seconds(t0);

  Checkpoint in, back;
  FUSEKIT_TRY(Checkpoint::open(in_path, in));
  FUSEKIT_TRY(Checkpoint::open(back_dir, back));
  r.roundtrip_bitwise = same_tensors(in, back);
  report = r;
  return {};
}

}  // namespace fusekit::checkpoint
