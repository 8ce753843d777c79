// The main of every fusekit_bench_<component>: harness flags, GPU check, ceilings, context, run.
#include "harness.hpp"

#include "build_info.hpp"
#include "ceilings.hpp"
#include "device_timing.hpp"
#include "runtime.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace fusekit::bench;

constexpr const char* kUsage =
    "fusekit benchmark harness flags (besides Google Benchmark's --benchmark_*):\n"
    "  --require-gpu        exit 1 instead of 0 when no CUDA GPU is present\n"
    "  --skip-ceilings      do not measure the copy/GEMM ceilings; assume the documented H200 values\n"
    "  --samples=N          timed samples per run (default 15)\n"
    "  --wait-us=X          device-side wait queued before each gpu_latency launch (default 50)\n"
    "  --sample-ms=X        throughput modes: calls per sample fill about X ms (default 2)\n";

struct HarnessFlags {
  bool require_gpu = false, skip_ceilings = false, list_only = false, help = false;
};

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

double number_after(const char* arg, const char* prefix) {
  char* end = nullptr;
  const double v = std::strtod(arg + std::strlen(prefix), &end);
  if (end == arg + std::strlen(prefix) || *end != '\0' || !(v > 0)) {
    std::fprintf(stderr, "fusekit bench: bad value in %s (expected a positive number)\n", arg);
    std::exit(2);
  }
  return v;
}

// Removes the harness's own flags from argv, leaving Google Benchmark's.
HarnessFlags take_harness_flags(int& argc, char** argv, detail::Options& opt) {
  HarnessFlags f;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "--require-gpu")) f.require_gpu = true;
    else if (!std::strcmp(a, "--skip-ceilings")) f.skip_ceilings = true;
    else if (starts_with(a, "--samples=")) opt.samples = static_cast<int>(number_after(a, "--samples="));
    else if (starts_with(a, "--wait-us=")) opt.wait_us = number_after(a, "--wait-us=");
    else if (starts_with(a, "--sample-ms=")) opt.sample_target_ms = number_after(a, "--sample-ms=");
    else {
      if (starts_with(a, "--benchmark_list_tests")) f.list_only = true;
      if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) f.help = true;
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return f;
}

// One line of `nvidia-smi` about clocks and driver, or "unavailable".
std::string nvidia_smi_line() {
  FILE* p = popen("nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit "
                  "--format=csv,noheader 2>/dev/null", "r");
  if (!p) return "unavailable";
  char buf[512] = {};
  std::string line = std::fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line.empty() ? "unavailable" : line;
}

void add_context(const cudaDeviceProp& prop, const detail::Runtime& rt) {
  int driver = 0, runtime_version = 0, sm_khz = 0, mem_khz = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime_version);
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  benchmark::AddCustomContext("fusekit_device", prop.name);
  benchmark::AddCustomContext("fusekit_sm", std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
                                                std::to_string(prop.multiProcessorCount) + " SMs, L2 " +
                                                std::to_string(prop.l2CacheSize >> 20) + " MiB");
  benchmark::AddCustomContext("fusekit_cuda_driver_api", version(driver));
  benchmark::AddCustomContext("fusekit_cuda_runtime", version(runtime_version));
  benchmark::AddCustomContext("fusekit_clocks_peak_mhz", "sm " + std::to_string(sm_khz / 1000) + ", memory " +
                                                             std::to_string(mem_khz / 1000));
  benchmark::AddCustomContext("fusekit_nvidia_smi", "driver_version, clocks.sm, clocks.max.sm, clocks.mem, power.limit: " +
                                                        nvidia_smi_line());
  benchmark::AddCustomContext("fusekit_commit", fusekit::bench::build_info::kCommit);
  benchmark::AddCustomContext("fusekit_build_type", fusekit::bench::build_info::kBuildType);
  benchmark::AddCustomContext("fusekit_copy_gbps", std::to_string(rt.ceilings.copy_gbps));
  benchmark::AddCustomContext("fusekit_gemm_tflops", std::to_string(rt.ceilings.gemm_tflops));
  benchmark::AddCustomContext("fusekit_ceilings", rt.ceilings.measured ? "measured" : "assumed (--skip-ceilings)");
  benchmark::AddCustomContext("fusekit_samples", std::to_string(rt.options.samples));
}

}  // namespace

int main(int argc, char** argv) {
  detail::Runtime& rt = detail::runtime();
  const HarnessFlags flags = take_harness_flags(argc, argv, rt.options);
  if (flags.help) std::fputs(kUsage, stdout);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  const int runs = detail::register_all_with_google_benchmark();
  if (flags.list_only) {  // listing needs no GPU
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "fusekit bench: no CUDA GPU (%s); %d runs registered, none run.\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "no device", runs);
    return flags.require_gpu ? 1 : 0;
  }
  int status = 0;
  try {
    cudaDeviceProp prop{};
    FUSEKIT_BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    FUSEKIT_BENCH_CUDA(cudaStreamCreateWithFlags(&rt.stream, cudaStreamNonBlocking));
    rt.l2_bytes = prop.l2CacheSize;
    rt.flusher = std::make_unique<detail::L2Flusher>(static_cast<std::size_t>(prop.l2CacheSize));
    if (flags.skip_ceilings) {
      rt.ceilings = {detail::kAssumedCopyGbps, detail::kAssumedGemmTflops, false};
    } else {
      rt.ceilings = detail::measure_ceilings(rt.stream);
    }
    std::fprintf(stderr, "fusekit bench: %s, copy %.0f GB/s, bf16 GEMM %.0f TFLOP/s (%s), %d runs registered\n",
                 prop.name, rt.ceilings.copy_gbps, rt.ceilings.gemm_tflops, rt.ceilings.measured ? "measured" : "assumed",
                 runs);
    add_context(prop, rt);
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fusekit bench: %s\n", e.what());
    status = 1;
  }
  detail::release_current_case();
  rt.flusher.reset();
  benchmark::Shutdown();
  return status;
}
