#include "harness.hpp"

#include "device_timing.hpp"
#include "runtime.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

namespace fusekit::bench {
namespace detail {
namespace {

struct RegisteredCase {
  CaseSpec spec;
  std::function<Instance(int sets)> make;
};

std::vector<std::shared_ptr<RegisteredCase>>& registry() {
  static std::vector<std::shared_ptr<RegisteredCase>> cases;
  return cases;
}

// The instance of the case now running; consecutive modes of one case share it.
struct CurrentInstance {
  const RegisteredCase* owner = nullptr;
  int sets = 0;
  Instance instance;
};
CurrentInstance& current() {
  static CurrentInstance c;
  return c;
}

Instance& instance_for(const RegisteredCase& c, int sets) {
  CurrentInstance& cur = current();
  if (cur.owner != &c || cur.sets != sets) {
    cur = CurrentInstance{};  // release the previous case's buffers before making the next
    FUSEKIT_BENCH_CUDA(cudaDeviceSynchronize());
    Instance made = c.make(sets);
    if (!made.launch || !made.validate) throw std::runtime_error("make() returned an instance without launch/validate");
    cur = CurrentInstance{&c, sets, std::move(made)};
  }
  return cur.instance;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Sets up one mode and returns a function that takes one timed sample (seconds per call).
class ModeSampler {
 public:
  ModeSampler(Mode mode, Instance& inst, int sets) : mode_(mode), inst_(inst), sets_(sets) {
    Runtime& rt = runtime();
    stream_ = rt.stream;
    // Warm-up over every set (module load, handles, first-touch), then an estimate of one call.
    for (int s = 0; s < sets_; ++s) inst_.launch(stream_, s);
    FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
    const int probe_calls = std::max(sets_, 3);
    events_.start(stream_);
    for (int i = 0; i < probe_calls; ++i) inst_.launch(stream_, i % sets_);
    events_.stop(stream_);
    const double per_call = std::max(events_.seconds() / probe_calls, 1e-7);
    calls_ = static_cast<int>(std::clamp(std::ceil(rt.options.sample_target_ms * 1e-3 / per_call), 1.0,
                                         double(rt.options.max_calls_per_sample)));
    if (mode_ == Mode::gpu_throughput) capture_graph();
  }
  ~ModeSampler() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  ModeSampler(const ModeSampler&) = delete;
  ModeSampler& operator=(const ModeSampler&) = delete;

  int calls_per_sample() const { return mode_ == Mode::gpu_throughput || mode_ == Mode::e2e_throughput ? calls_ : 1; }

  double sample() {
    Runtime& rt = runtime();
    switch (mode_) {
      case Mode::gpu_throughput: {
        events_.start(stream_);
        FUSEKIT_BENCH_CUDA(cudaGraphLaunch(exec_, stream_));
        events_.stop(stream_);
        return events_.seconds() / calls_;
      }
      case Mode::gpu_latency: {
        rt.flusher->flush(stream_);
        enqueue_wait(stream_, rt.options.wait_us);
        events_.start(stream_);
        inst_.launch(stream_, 0);
        events_.stop(stream_);
        const double s = events_.seconds();
        FUSEKIT_BENCH_CUDA(cudaGetLastError());
        return s;
      }
      case Mode::e2e_throughput: {
        FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls_; ++i) inst_.launch(stream_, i % sets_);
        FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
        return seconds_since(t0) / calls_;
      }
      case Mode::e2e_latency: {
        rt.flusher->flush(stream_);
        FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
        const auto t0 = std::chrono::steady_clock::now();
        inst_.launch(stream_, 0);
        FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
        return seconds_since(t0);
      }
    }
    throw std::logic_error("unknown mode");
  }

 private:
  void capture_graph() {
    FUSEKIT_BENCH_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < calls_; ++i) inst_.launch(stream_, i % sets_);
    } catch (...) {
      cudaStreamEndCapture(stream_, &graph_);
      throw;
    }
    const cudaError_t end = cudaStreamEndCapture(stream_, &graph_);
    if (end != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(std::string("launch() is not stream-capturable: ") + cudaGetErrorString(end));
    }
    FUSEKIT_BENCH_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
    FUSEKIT_BENCH_CUDA(cudaGraphUpload(exec_, stream_));
    FUSEKIT_BENCH_CUDA(cudaGraphLaunch(exec_, stream_));  // warm replay
    FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(stream_));
  }

  Mode mode_;
  Instance& inst_;
  int sets_;
  cudaStream_t stream_ = nullptr;
  EventPair events_;
  int calls_ = 1;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

void report_progress(const std::string& name, double us, double gbps, double tflops, const Validation* v,
                     const char* error) {
  static int index = 0;
  static const auto start = std::chrono::steady_clock::now();
  ++index;
  if (error) {
    std::fprintf(stderr, "[fusekit-bench %4d, %6.1f s] %s FAILED: %s\n", index, seconds_since(start), name.c_str(), error);
  } else {
    std::fprintf(stderr, "[fusekit-bench %4d, %6.1f s] %s %.2f us %.0f GB/s %.1f TFLOP/s rel_err %.2e %s\n", index,
                 seconds_since(start), name.c_str(), us, gbps, tflops, v->rel_err, v->ok ? "ok" : "INVALID");
  }
  std::fflush(stderr);
}

void run_case(benchmark::State& state, const RegisteredCase& c, Mode mode, const std::string& name) {
  const Runtime& rt = runtime();
  const CaseSpec& spec = c.spec;
  const int sets = rotating_sets(spec.working_set_bytes > 0 ? spec.working_set_bytes : spec.bytes, rt.l2_bytes);
  std::vector<double> samples;
  Validation v;
  int calls = 1;
  std::string label;
  try {
    Instance& inst = instance_for(c, sets);
    label = inst.label;
    ModeSampler sampler(mode, inst, sets);
    calls = sampler.calls_per_sample();
    for (auto _ : state) {
      const double s = sampler.sample();
      state.SetIterationTime(s);
      samples.push_back(s);
    }
    FUSEKIT_BENCH_CUDA(cudaStreamSynchronize(rt.stream));
    FUSEKIT_BENCH_CUDA(cudaGetLastError());
    v = inst.validate();  // one executed output validation per mode
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    report_progress(name, 0, 0, 0, nullptr, e.what());
    cudaGetLastError();  // a sticky error would show up in every later case: clear what can be cleared
    current() = CurrentInstance{};
    return;
  }
  const double t = median(samples);
  const double gbps = spec.bytes / t / 1e9, tflops = spec.flops / t / 1e12;
  state.counters["us"] = t * 1e6;
  state.counters["us_min"] = *std::min_element(samples.begin(), samples.end()) * 1e6;
  state.counters["us_max"] = *std::max_element(samples.begin(), samples.end()) * 1e6;
  state.counters["bytes"] = spec.bytes;
  state.counters["flops"] = spec.flops;
  state.counters["GB/s"] = gbps;
  state.counters["TFLOP/s"] = tflops;
  state.counters["copy_ratio"] = rt.ceilings.copy_gbps > 0 ? gbps / rt.ceilings.copy_gbps : 0;
  state.counters["gemm_ratio"] = rt.ceilings.gemm_tflops > 0 ? tflops / rt.ceilings.gemm_tflops : 0;
  state.counters["rel_err"] = v.rel_err;
  state.counters["validated"] = v.ok ? 1 : 0;
  state.counters["sets"] = sets;
  state.counters["calls_per_sample"] = calls;
  if (!label.empty()) state.SetLabel(label);
  report_progress(name, t * 1e6, gbps, tflops, &v, nullptr);
  if (!v.ok) state.SkipWithError(("validation failed: " + v.message).c_str());
}

}  // namespace

Runtime& runtime() {
  static Runtime rt;
  return rt;
}

int register_all_with_google_benchmark() {
  int runs = 0;
  for (const auto& c : registry()) {
    for (Mode mode : c->spec.modes) {
      const std::string name = run_name(c->spec, mode);
      benchmark::RegisterBenchmark(name.c_str(), [c, mode, name](benchmark::State& st) { run_case(st, *c, mode, name); })
          ->UseManualTime()
          ->Iterations(runtime().options.samples)
          ->Unit(benchmark::kMicrosecond);
      ++runs;
    }
  }
  return runs;
}

void release_current_case() { current() = CurrentInstance{}; }

}  // namespace detail

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::gpu_throughput: return "gpu_throughput";
    case Mode::gpu_latency: return "gpu_latency";
    case Mode::e2e_throughput: return "e2e_throughput";
    case Mode::e2e_latency: return "e2e_latency";
  }
  return "unknown";
}

bool parse_mode(std::string_view name, Mode& mode) {
  for (Mode m : kAllModes) {
    if (name == mode_name(m)) {
      mode = m;
      return true;
    }
  }
  return false;
}

std::string run_name(const CaseSpec& s, Mode mode) {
  return s.suite + "/" + s.op + "/" + s.dtype + "/" + s.shape + "/" + s.impl + "/" + mode_name(mode);
}

int rotating_sets(double working_set_bytes, double l2_bytes) {
  if (working_set_bytes <= 0 || l2_bytes <= 0) return 1;
  // Consecutive calls must not find their data in L2: cover twice its size before a set repeats.
  const double sets = std::ceil(2 * l2_bytes / working_set_bytes);
  return static_cast<int>(std::clamp(sets, 1.0, 64.0));
}

void register_case(CaseSpec spec, std::function<Instance(int sets)> make) {
  detail::registry().push_back(std::make_shared<detail::RegisteredCase>(detail::RegisteredCase{std::move(spec), std::move(make)}));
}

const Ceilings& ceilings() { return detail::runtime().ceilings; }

}  // namespace fusekit::bench
