// The check both builds without sm_90a code make (test_older_target.cu, test_plain_sm90.cu): a
// 70 x 256 x 512 bf16 linear runs (on the portable main loop there) and matches float64.
#pragma once

#include <doctest/doctest.h>

#include "fusekit/gemm.hpp"
#include "support/gpu.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fusekit::test {

inline std::vector<float> normal_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline void check_linear_runs_right() {
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

}  // namespace fusekit::test
