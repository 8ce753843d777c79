// Built for compute_80 PTX only (CMake: CUDA_ARCHITECTURES 80-virtual). On an sm_90 GPU the
// driver JIT-compiles that PTX, in which the cluster, staged and Hopper kernels are compiled out
// (#if __CUDA_ARCH__ >= 900, FUSEKIT_SM90A): the dispatch must see that the code is not sm_90
// code (compiled_for_sm90), refuse the rows that need a cluster without writing anything, and
// run the rest on the kernels this binary has: the register row kernels, the portable GEMM.
#include <doctest/doctest.h>

#include "arch/linear_check.hpp"
#include "fusekit/gemm.hpp"
#include "fusekit/reduce.hpp"
#include "support/gpu.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace fusekit;
using namespace fusekit::test;


GPU_TEST_CASE("older target: rms_norm runs the rows the register kernels hold; rows that need a cluster are refused") {
  constexpr std::int64_t kRows = 3, kShort = 1024, kLong = 20000;  // f32: 1024 in one CTA, 20000 a cluster
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  const std::vector<float> x = normal_floats(std::size_t(kRows * kLong), seed);
  DeviceBuffer in(x.size() * sizeof(float)), out(x.size() * sizeof(float));
  in.upload(x.data());
  out.poison();
  Status s = rms_norm<DTypes<float>>({in.get(), DType::f32, kRows, kShort, 0}, {out.get(), DType::f32, kRows, kShort, 0});
  REQUIRE_MESSAGE(s.ok(), s.to_string());
  CHECK_LAUNCH();
  std::vector<float> y(x.size());
  out.download(y.data());
  for (std::int64_t r = 0; r < kRows; ++r) {
    double sum_sq = 0;
    for (std::int64_t i = 0; i < kShort; ++i) sum_sq += double(x[r * kShort + i]) * x[r * kShort + i];
    const double rstd = 1.0 / std::sqrt(sum_sq / kShort + 1e-5);
    for (std::int64_t i = 0; i < kShort; ++i) {
      const double want = x[r * kShort + i] * rstd;
      CHECK_MESSAGE(std::fabs(y[r * kShort + i] - want) <= 2e-6 * std::fabs(want) + 1e-6,
                    "row " << r << " col " << i << ": " << y[r * kShort + i] << " vs " << want);
    }
  }
  out.poison();
  s = rms_norm<DTypes<float>>({in.get(), DType::f32, kRows, kLong, 0}, {out.get(), DType::f32, kRows, kLong, 0});
  CHECK(s.code() == Errc::unsupported_device);
  CHECK_LAUNCH();
  out.download(y.data());
  const auto* bytes = reinterpret_cast<const unsigned char*>(y.data());
  std::size_t written = 0;
  for (std::size_t b = 0; b < y.size() * sizeof(float); ++b) written += bytes[b] != 0xFF;
  CHECK_MESSAGE(written == 0, written << " bytes written by a refused call");
}

GPU_TEST_CASE("older target: linear runs on the portable main loop and is right") { check_linear_runs_right(); }
