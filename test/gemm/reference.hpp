// Float64 host references for fusekit's GEMM epilogues, and the host-side data they work on.
// Every function computes in double from the exact (already rounded) input values.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/activation.hpp"
#include "fusekit/gemm/epilogue/glu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace fusekit::test {

// f(i) for i in [0, n), spread over all cores (references of the H3 shapes are large).
template <class F> void parallel_for(std::int64_t n, F&& f) {
  const int threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::int64_t i = t; i < n; i += threads) f(i);
    });
  for (auto& th : pool) th.join();
}

// Exact host values of a row-major tensor that lives (rounded to `dtype`) on the device.
struct Matrix {
  DType dtype = DType::bf16;
  std::int64_t rows = 0, cols = 0;
  std::vector<float> v;
  float at(std::int64_t r, std::int64_t c) const { return v[r * cols + c]; }
  std::size_t bytes() const { return v.size() * dtype_size(dtype); }
};

inline float round_to(DType t, float x) {
  return visit_dtype(t, [&](auto tag) { return to_float(from_float<decltype(tag)>(x)); });
}

// mean + stddev * N(0, 1), rounded to dtype; rows are generated in parallel from one seed.
inline Matrix random_matrix(DType t, std::int64_t rows, std::int64_t cols, std::uint64_t seed, double stddev,
                            double mean = 0.0) {
  Matrix m{t, rows, cols, std::vector<float>(rows * cols)};
  parallel_for(rows, [&](std::int64_t r) {
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * (r + 1)));
    std::normal_distribution<double> dist(mean, stddev);
    for (std::int64_t c = 0; c < cols; ++c) m.v[r * cols + c] = round_to(t, static_cast<float>(dist(rng)));
  });
  return m;
}

// Packs values into dtype bytes (for upload) and back (after download).
inline std::vector<unsigned char> to_bytes(const Matrix& m) {
  std::vector<unsigned char> out(m.bytes());
  visit_dtype(m.dtype, [&](auto tag) {
    using T = decltype(tag);
    auto* p = reinterpret_cast<T*>(out.data());
    for (std::size_t i = 0; i < m.v.size(); ++i) p[i] = from_float<T>(m.v[i]);
    return 0;
  });
  return out;
}
inline Matrix from_bytes(DType t, std::int64_t rows, std::int64_t cols, const std::vector<unsigned char>& bytes) {
  Matrix m{t, rows, cols, std::vector<float>(rows * cols)};
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const auto* p = reinterpret_cast<const T*>(bytes.data());
    for (std::size_t i = 0; i < m.v.size(); ++i) m.v[i] = to_float(p[i]);
    return 0;
  });
  return m;
}

// cos/sin f32 [m, rot] as the model builds them: angles pos * theta^(-i/16) for 3 axes of 16
// frequencies, the half-width table concatenated with itself (rotate-half convention).
inline std::pair<Matrix, Matrix> rotary_matrices(std::int64_t m, int rot) {
  Matrix c{DType::f32, m, rot, std::vector<float>(m * rot)}, s = c;
  const int h = rot / 2;
  for (std::int64_t r = 0; r < m; ++r)
    for (int j = 0; j < h; ++j) {
      const double pos = double((r * 7 + j / 16 * 13) % 97), freq = std::pow(10000.0, -double(j % 16) / 16);
      c.v[r * rot + j] = c.v[r * rot + j + h] = static_cast<float>(std::cos(pos * freq));
      s.v[r * rot + j] = s.v[r * rot + j + h] = static_cast<float>(std::sin(pos * freq));
    }
  return {c, s};
}

// The rows a reference is computed for: all of them up to 256, else first, last and 30 random.
inline std::vector<std::int64_t> sample_rows(std::int64_t m, std::uint64_t seed) {
  std::vector<std::int64_t> rows;
  if (m <= 256) {
    for (std::int64_t r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  }
  std::mt19937_64 rng(seed);
  rows = {0, m - 1};
  for (int i = 0; i < 30; ++i) rows.push_back(static_cast<std::int64_t>(rng() % m));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// A dense double matrix of the sampled rows: value (i, c) for row rows[i].
struct Ref {
  std::vector<std::int64_t> rows;
  std::int64_t cols = 0;
  std::vector<double> v;
  double& at(std::size_t i, std::int64_t c) { return v[i * cols + c]; }
  double at(std::size_t i, std::int64_t c) const { return v[i * cols + c]; }
};

// y = A W^T over the sampled rows.
inline Ref ref_gemm(const Matrix& a, const Matrix& w, const std::vector<std::int64_t>& rows) {
  Ref y{rows, w.rows, std::vector<double>(rows.size() * w.rows)};
  parallel_for(w.rows, [&](std::int64_t n) {
    const float* wr = &w.v[n * w.cols];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const float* ar = &a.v[rows[i] * a.cols];
      double s = 0;
      for (std::int64_t k = 0; k < a.cols; ++k) s += double(ar[k]) * double(wr[k]);
      y.v[i * y.cols + n] = s;
    }
  });
  return y;
}

// The same rows of a full device result (cuBLASLt's GEMM output, say), as doubles.
inline Ref take_rows(const Matrix& m, const std::vector<std::int64_t>& rows) {
  Ref y{rows, m.cols, std::vector<double>(rows.size() * m.cols)};
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::int64_t c = 0; c < m.cols; ++c) y.at(i, c) = m.at(rows[i], c);
  return y;
}

inline double ref_activate(gemm::Activation act, double x) {
  switch (act) {
    case gemm::Activation::gelu_tanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / 3.141592653589793) * (x + 0.044715 * x * x * x)));
    case gemm::Activation::silu: return x / (1 + std::exp(-x));
    default: return x;
  }
}

inline void ref_bias_act(Ref& y, const Matrix* bias, gemm::Activation act) {
  for (std::size_t i = 0; i < y.rows.size(); ++i)
    for (std::int64_t c = 0; c < y.cols; ++c) y.at(i, c) = ref_activate(act, y.at(i, c) + (bias ? bias->v[c] : 0.0));
}

inline Ref ref_glu(const Ref& y, gemm::Activation act, gemm::GluOrder order) {
  const std::int64_t n = y.cols / 2;
  const std::int64_t gate = order == gemm::GluOrder::gate_value ? 0 : n, value = n - gate;
  Ref out{y.rows, n, std::vector<double>(y.rows.size() * n)};
  for (std::size_t i = 0; i < y.rows.size(); ++i)
    for (std::int64_t c = 0; c < n; ++c) out.at(i, c) = ref_activate(act, y.at(i, gate + c)) * y.at(i, value + c);
  return out;
}

// y = residual + gate[idx[row]] * y (gate null: plain add).
inline void ref_residual(Ref& y, const Matrix& residual, const Matrix* gate, const std::vector<std::int32_t>& idx) {
  for (std::size_t i = 0; i < y.rows.size(); ++i) {
    const std::int64_t r = y.rows[i];
    for (std::int64_t c = 0; c < y.cols; ++c)
      y.at(i, c) = residual.at(r, c) + (gate ? double(gate->at(idx[r], c)) : 1.0) * y.at(i, c);
  }
}

// RMSNorm of each head_dim-wide head starting in [begin, end).
inline void ref_head_rmsnorm(Ref& y, std::int64_t begin, std::int64_t end, int head_dim, const Matrix& weight,
                             double eps) {
  for (std::size_t i = 0; i < y.rows.size(); ++i)
    for (std::int64_t c0 = begin; c0 < end; c0 += head_dim) {
      double ss = 0;
      for (int c = 0; c < head_dim; ++c) ss += y.at(i, c0 + c) * y.at(i, c0 + c);
      const double inv = 1.0 / std::sqrt(ss / head_dim + eps);
      for (int c = 0; c < head_dim; ++c) y.at(i, c0 + c) *= inv * weight.v[c];
    }
}

// Rotate-half rotary on the first rot_dim channels of each head starting in [begin, end).
inline void ref_rotary(Ref& y, std::int64_t begin, std::int64_t end, int head_dim, int rot_dim, const Matrix& cos,
                       const Matrix& sin) {
  const int h = rot_dim / 2;
  for (std::size_t i = 0; i < y.rows.size(); ++i) {
    const std::int64_t r = y.rows[i];
    for (std::int64_t c0 = begin; c0 < end; c0 += head_dim)
      for (int j = 0; j < h; ++j) {
        const double x1 = y.at(i, c0 + j), x2 = y.at(i, c0 + j + h);
        y.at(i, c0 + j) = x1 * cos.at(r, j) - x2 * sin.at(r, j);
        y.at(i, c0 + j + h) = x2 * cos.at(r, j + h) + x1 * sin.at(r, j + h);
      }
  }
}

// The qkv epilogue on a GEMM result: per-head RMSNorm of q and k, rotary on both (v untouched).
inline void ref_qkv_epilogue(Ref& y, std::int64_t part, int head_dim, int rot, const Matrix* q_norm,
                             const Matrix* k_norm, const Matrix& cos, const Matrix& sin, double eps) {
  if (q_norm) ref_head_rmsnorm(y, 0, part, head_dim, *q_norm, eps);
  if (k_norm) ref_head_rmsnorm(y, part, 2 * part, head_dim, *k_norm, eps);
  if (rot > 0) ref_rotary(y, 0, 2 * part, head_dim, rot, cos, sin);
}

// Rounds every reference value to dtype: how an unfused pipeline's last op stores its result.
inline void round_all(Ref& y, DType t) {
  for (double& x : y.v) x = round_to(t, static_cast<float>(x));
}

// ||got - ref|| / ||ref|| over the sampled rows (the seed report's rel_err_vs_fp64).
inline double rel_err(const Ref& got, const Ref& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.v.size(); ++i) {
    num += (got.v[i] - ref.v[i]) * (got.v[i] - ref.v[i]);
    den += ref.v[i] * ref.v[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace fusekit::test
