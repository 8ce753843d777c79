// Built for compute_80 PTX only (CMake: CUDA_ARCHITECTURES 80-virtual). On an sm_90 GPU the
// driver JIT-compiles that PTX, in which the cluster, staged and Hopper kernels are compiled out
// (#if __CUDA_ARCH__ >= 900, FUSEKIT_SM90A): the dispatch must see that the code is not sm_90
// code (compiled_for_sm90), refuse the rows that need a cluster without writing anything, and
// run the rest on the kernels this binary has: the register row kernels, the portable GEMM.
#include <doctest/doctest.h>

#include "fusekit/gemm.hpp"
#include "fusekit/reduce.hpp"
#include "support/gpu.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace fusekit;
using namespace fusekit::test;

namespace {

std::vector<float> normal_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

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

GPU_TEST_CASE("older target: linear runs on the portable main loop and is right") {
  constexpr std::int64_t M = 70, N = 256, K = 512;
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::vector<float> a = normal_floats(std::size_t(M * K), seed), w = normal_floats(std::size_t(N * K), seed + 1);
  std::vector<bf16_t> a16(a.size()), w16(w.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = from_float<bf16_t>(a[i]), a[i] = to_float(a16[i]);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w16[i] = from_float<bf16_t>(w[i] / std::sqrt(float(K)));
    w[i] = to_float(w16[i]);
  }
  DeviceBuffer da(a16.size() * 2), dw(w16.size() * 2), dy(std::size_t(M * N) * 2);
  da.upload(a16.data());
  dw.upload(w16.data());
  dy.poison();
  const Status s = gemm::linear({da.get(), DType::bf16, M, K, 0}, {dw.get(), DType::bf16, N, K, 0},
                                {dy.get(), DType::bf16, M, N, 0});
  REQUIRE_MESSAGE(s.ok(), s.to_string());
  CHECK_LAUNCH();
  std::vector<bf16_t> y(std::size_t(M * N));
  dy.download(y.data());
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      double want = 0;
      for (std::int64_t k = 0; k < K; ++k) want += double(a[m * K + k]) * w[n * K + k];
      const double got = to_float(y[m * N + n]);
      // bf16 output: half an ulp of the result (2^-9 relative) plus fp32 summation slack.
      CHECK_MESSAGE(std::fabs(got - want) <= std::fabs(want) / 256 + 1e-3, "y[" << m << "][" << n << "] = " << got
                                                                               << ", want " << want);
    }
}
