// benchmark/harness/harness.hpp: the one benchmark harness every fusekit kernel uses.
//
// A case describes one operation at one shape in one implementation (CaseSpec) and knows how to
// set itself up (make). The harness times it in four modes, validates its output after each mode
// against the case's float64 host reference, and reports Google Benchmark counters. Modes:
//   gpu_throughput: device events around a CUDA graph of many back-to-back launches, rotating
//                   input/output sets when one set would fit in L2;
//   gpu_latency:    device events around one launch, after an L2 flush, queued behind a short
//                   device-side wait so the start event is not recorded early;
//   e2e_throughput: host clock over many public-API calls, one synchronize at the end;
//   e2e_latency:    host clock over one public-API call plus synchronize (L2 flushed before).
// docs/benchmarks.md defines every counter.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fusekit::bench {

enum class Mode { gpu_throughput, gpu_latency, e2e_throughput, e2e_latency };
inline constexpr Mode kAllModes[] = {Mode::gpu_throughput, Mode::gpu_latency, Mode::e2e_throughput,
                                     Mode::e2e_latency};
const char* mode_name(Mode);                         // "gpu_throughput", ...
bool parse_mode(std::string_view name, Mode& mode);  // inverse of mode_name; false if unknown

struct Validation {
  bool ok = false;
  double rel_err = 0;
  std::string message;
};

struct Instance {  // one case, set up and ready to run
  // Enqueues ONE call of the public API on rotating set `set`; must be stream-capturable (graph)
  // and must not synchronize. May throw std::exception to report a host-side failure.
  std::function<void(cudaStream_t, int set)> launch;
  // Checks set 0's last output against a float64 host reference.
  std::function<Validation()> validate;
  // Owns the device buffers; released after the case ran.
  std::shared_ptr<void> keepalive;
  // What the call runs, in a few words (the row kernel the library planned), or empty; the run's label.
  std::string label;
};

struct CaseSpec {
  std::string suite;  // "reduce", "h3_norm", "gemm", ...
  std::string op;     // "softmax", "rms_norm", "qkv_proj", ...
  std::string dtype;  // "bf16", "f32", ...
  std::string shape;  // "16384x4096", "tokens=925", ...
  std::string impl;   // "fusekit", "plain", "cublaslt", "unfused", ...
  double bytes = 0;   // fewest HBM bytes one call must move (each input read once, each output written once)
  double flops = 0;   // 0 for memory-bound ops
  double working_set_bytes = 0;  // bytes one set touches (to decide rotation); 0 means `bytes`
  std::vector<Mode> modes{std::begin(kAllModes), std::end(kAllModes)};
};

// Registers the case with Google Benchmark as "<suite>/<op>/<dtype>/<shape>/<impl>/<mode>".
// `make(sets)` is called lazily with the number of rotating input/output sets the harness wants
// (> 1 when working_set_bytes is small enough that L2 would serve repeats). One instance serves
// the consecutive modes of a case; it is released before the next case is made.
void register_case(CaseSpec spec, std::function<Instance(int sets)> make);

// "<suite>/<op>/<dtype>/<shape>/<impl>/<mode>", the Google Benchmark name of one run.
std::string run_name(const CaseSpec& spec, Mode mode);

// The number of rotating sets for a working set: enough sets that consecutive calls of one
// graph replay cannot find their inputs in an L2 of `l2_bytes` (at most 64 sets).
int rotating_sets(double working_set_bytes, double l2_bytes);

// Ceilings measured once at start-up (or the documented H200 values with --skip-ceilings).
struct Ceilings {
  double copy_gbps = 0;    // device-to-device copy, bytes read + written per second / 1e9
  double gemm_tflops = 0;  // bf16 GEMM 8192^3 through cuBLASLt
  bool measured = false;   // false: the documented H200 values were assumed
};
const Ceilings& ceilings();

}  // namespace fusekit::bench

// Runs `fn()` once during static initialisation; use it to call register_case from a case file:
//   static void register_softmax() { fusekit::bench::register_case(...); }
//   FUSEKIT_BENCH_REGISTER(register_softmax);
#define FUSEKIT_BENCH_CONCAT_(a, b) a##b
#define FUSEKIT_BENCH_CONCAT(a, b) FUSEKIT_BENCH_CONCAT_(a, b)
#define FUSEKIT_BENCH_REGISTER(fn) \
  [[maybe_unused]] static const bool FUSEKIT_BENCH_CONCAT(fusekit_bench_registered_, __LINE__) = ((fn)(), true)
