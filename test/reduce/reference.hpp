// Float64 host references for the row ops, and the error bounds they are checked against.
#pragma once

#include "fusekit/core/dtype.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fusekit::test {

enum class RowOp { softmax, rms_norm, layer_norm };

struct RowReference {
  std::vector<double> y;
  double stats[2] = {0, 0};
};

// x: the row after the residual add (already rounded to the input dtype, as the kernel does).
// w, b, scale, shift: empty when absent.
inline RowReference reference_row(RowOp op, const std::vector<double>& x, double eps, const std::vector<double>& w,
                                  double weight_offset, const std::vector<double>& b, const std::vector<double>& scale,
                                  const std::vector<double>& shift) {
  const std::size_t n = x.size();
  RowReference r;
  r.y.resize(n);
  if (op == RowOp::softmax) {
    double m = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (double v : x) {
      nan |= std::isnan(v);
      m = std::max(m, v);
    }
    double s = 0;
    for (double v : x) s += std::exp(v - m);
    if (nan) s = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) r.y[i] = std::exp(x[i] - m) / s;
    r.stats[0] = m;
    r.stats[1] = s;
    return r;
  }
  double mean = 0;
  if (op == RowOp::layer_norm) {
    for (double v : x) mean += v;
    mean /= double(n);
  }
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double rstd = 1.0 / std::sqrt(ss / double(n) + eps);
  for (std::size_t i = 0; i < n; ++i) {
    double y = (x[i] - mean) * rstd;
    if (!w.empty()) y *= w[i] + weight_offset;
    if (!b.empty()) y += b[i];
    if (!scale.empty()) y = y * (1 + scale[i]) + shift[i];
    r.y[i] = y;
  }
  if (op == RowOp::layer_norm) {
    r.stats[0] = mean;
    r.stats[1] = rstd;
  } else {
    r.stats[0] = rstd;
  }
  return r;
}

// Bounds for |y - ref|, per output dtype:
//  * f16 / bf16: half an ulp of the output (2^-11 / 2^-8 relative) for the final rounding, plus
//    1e-5 relative for the fp32 arithmetic before it; values under the type's smallest normal may
//    land on the subnormal grid, hence the absolute term.
//  * f32: 2e-6 relative (fp32 sums of thousands of terms, rsqrt/exp2 to 2 ulp), plus 1e-6 of the
//    row's largest |ref| for results near zero, whose relative error means nothing (a LayerNorm
//    output near 0 inherits the absolute error of x - mean).
struct ErrorBound {
  double rel, abs_of_row_max, abs;
};
inline ErrorBound error_bound(DType out) {
  switch (out) {
    case DType::bf16: return {0.00390625 + 1e-5, 1e-6, 1e-38};
    case DType::f16: return {0.00048828125 + 1e-5, 1e-6, 6e-8};
    default: return {2e-6, 1e-6, 1e-30};
  }
}

}  // namespace fusekit::test
