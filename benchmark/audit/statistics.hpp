// benchmark/audit/statistics.hpp: the statistics of an audit: medians and ranges of per-round
// ratios, an exact two-sided Mann-Whitney U test, and the verdict that needs both an effect size
// and significance (docs/benchmarks.md defines each).
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusekit::audit {

inline double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// a[i] / b[i] for each round i.
inline std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("ratios of series of different lengths");
  std::vector<double> r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[i] = a[i] / b[i];
  return r;
}

struct Spread {
  double median = 0, min = 0, max = 0;
};
inline Spread spread(const std::vector<double>& v) {
  return {median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

// Two-sided exact p-value of the Mann-Whitney U test of samples x and y (no normal
// approximation: audits have few rounds). Ties count one half in U; with ties the p-value is
// taken conservatively (the tail is measured from the nearer whole U).
inline double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size(), m = y.size();
  if (n == 0 || m == 0) return 1.0;
  double u = 0;  // pairs where x wins, ties one half
  for (double a : x)
    for (double b : y) u += a < b ? 1.0 : a == b ? 0.5 : 0.0;
  // count[k]: arrangements of n x's among n + m ranks with U = k, built one sample at a time.
  const std::size_t max_u = n * m;
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t j = 0; j <= m; ++j) prev[j][0] = 1;  // no x: one arrangement, U = 0
  for (std::size_t i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> cur(m + 1, std::vector<double>(max_u + 1, 0.0));
    cur[0][0] = 1;
    for (std::size_t j = 1; j <= m; ++j)
      for (std::size_t k = 0; k <= max_u; ++k)  // the largest value is an x (beats all j y's) or a y
        cur[j][k] = (k >= j ? prev[j][k - j] : 0.0) + cur[j - 1][k];
    prev = std::move(cur);
  }
  const std::vector<double>& count = prev[m];
  double total = 0;
  for (double c : count) total += c;
  double lower = 0, upper = 0;
  for (std::size_t k = 0; k <= max_u; ++k) {
    if (double(k) <= std::ceil(u)) lower += count[k];
    if (double(k) >= std::floor(u)) upper += count[k];
  }
  return std::min(1.0, 2.0 * std::min(lower, upper) / total);
}

enum class Verdict { faster, slower, same, noisy };
inline const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "FASTER";
    case Verdict::slower: return "SLOWER";
    case Verdict::same: return "SAME";
    case Verdict::noisy: return "NOISY";
  }
  return "?";
}

struct VerdictRule {
  double min_effect = 0.03;  // |gain - 1| that counts as a change (3%)
  double alpha = 0.05;       // largest Mann-Whitney p-value that counts as significant
  double drift_band = 0.25;  // a control round outside [1/(1+band), 1+band] of its median makes NOISY
};

struct VerdictInput {
  double gain = 1;          // median over rounds of reference_us / candidate_us
  double p_value = 1;       // Mann-Whitney, reference rounds against candidate rounds
  bool control_drift = false;
};

// FASTER / SLOWER: the effect is at least min_effect and significant. SAME: the effect is under
// min_effect (significant or not). NOISY: the control drifted, or a large effect is not significant.
inline Verdict decide(const VerdictInput& in, const VerdictRule& rule) {
  if (in.control_drift) return Verdict::noisy;
  const bool significant = in.p_value <= rule.alpha;
  if (in.gain >= 1 + rule.min_effect) return significant ? Verdict::faster : Verdict::noisy;
  if (in.gain <= 1 / (1 + rule.min_effect)) return significant ? Verdict::slower : Verdict::noisy;
  return Verdict::same;
}

// True when some value lies outside [median / (1 + band), median * (1 + band)].
inline bool drifts(const std::vector<double>& control, double band) {
  if (control.empty()) return false;
  const double m = median(control);
  for (double c : control)
    if (!(c <= m * (1 + band) && c >= m / (1 + band))) return true;
  return false;
}

}  // namespace fusekit::audit
