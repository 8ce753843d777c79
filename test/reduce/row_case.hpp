// One row-op test case end to end: fresh random inputs, poisoned outputs, the call through the public
// API, and an element-by-element comparison with the float64 reference (every element must be written).
#pragma once

#include "support/gpu.hpp"
#include "reduce/reference.hpp"
#include "reduce/row_policy.hpp"

#include "fusekit/reduce.hpp"

#include <cinttypes>
#include <functional>
#include <optional>

namespace fusekit::test {

enum class Fill {
  normal,          // N(0, 1) (softmax: N(0, 4) so the exponentials spread)
  big_mean,        // N(1e4, 1): cancellation test for LayerNorm
  neg_inf_rows,    // softmax: every third row all -inf, others with ~25% -inf entries
  nan_rows,        // a NaN in every fifth row
  masked_tail,     // softmax: row r keeps its first 1 + (r * 7919) % N entries, the rest -inf (a causal
                   // mask: whole threads, warps and CTAs of a long row hold only -inf)
  block_means,     // LayerNorm: blocks of 64 columns around +-1e3, std 1, and column 0 (the pivot) at 4e3
};

struct RowCase {
  RowOp op = RowOp::rms_norm;
  DType in = DType::f32, out = DType::f32;
  std::int64_t rows = 1, cols = 1;
  std::int64_t in_stride = 0, out_stride = 0;  // 0: dense
  std::size_t in_shift = 0, out_shift = 0;     // elements past a 256-byte boundary (misalignment)
  bool in_place = false;                       // out is in's buffer (same stride and dtype)
  bool residual = false, residual_in_place = false;
  std::int64_t residual_shift = -1;  // elements the residual starts past its allocation; -1: in_shift
  std::int64_t residual_stride = 0;  // of the residual and residual_out; 0: in's
  std::optional<DType> weight;                 // weight dtype when present
  std::optional<DType> param_dtype;            // bias and table dtype without a weight (default f32)
  std::size_t param_shift = 0;                 // elements the weight and bias start past their allocations
  bool exact_params = false;                   // no slack after the weight and bias (DeviceBuffer::exact_end)
  float weight_offset = 0.f;
  bool bias = false;
  bool modulation = false;
  bool bad_index = false;                      // one row gets an out-of-range modulation index
  bool stats = false;
  Fill fill = Fill::normal;
  float eps = 1e-5f;
};

inline RowCase shaped_case(DType in, DType out, std::int64_t rows, std::int64_t cols) {
  RowCase c;
  c.in = in;
  c.out = out;
  c.rows = rows;
  c.cols = cols;
  return c;
}

struct RowRun {
  Status status;
  std::vector<unsigned char> out_bytes, residual_out_bytes;  // raw device results, for bitwise checks
  double max_scaled_error = 0;  // max over elements of |y - ref| / bound; <= 1 passes
  std::int64_t unwritten = 0;   // output elements still holding the poison, or written outside the call
  std::int64_t residual_mismatch = 0;  // residual_out elements that differ from the rounded in + residual
  bool vectors_aligned = false;        // RowParams::vectors_aligned of the call: the kernels' test-free path
  bool params_aligned = false;         // RowParams::params_aligned: 16-bit rows off their alignment take the phased kernels
  reduce::RowPlan plan;                // the kernel the call ran (reduce::plan_call)
};

// Calls the public API for kOp. Only the dtype pairs the tests use are instantiated (every dtype to
// itself, f32 -> bf16 and bf16 -> f32), to keep this translation unit's compile time small.
template <RowOp kOp, class TIn, class TOut>
Status call_typed(const ConstRows& in, const Rows& out, const NormOptions& o, cudaStream_t s) {
  using I = DTypes<TIn>;
  using O = DTypes<TOut>;
  if constexpr (kOp == RowOp::softmax) return softmax<I, O>(in, out, SoftmaxOptions{o.stats}, s);
  else if constexpr (kOp == RowOp::layer_norm) return layer_norm<I, O>(in, out, o, s);
  else return rms_norm<I, O>(in, out, o, s);
}

template <RowOp kOp> Status call_row_op(const ConstRows& in, const Rows& out, const NormOptions& o, cudaStream_t s) {
  if (in.dtype == out.dtype)
    return visit_dtype(in.dtype, [&](auto tag) {
      using T = decltype(tag);
      return call_typed<kOp, T, T>(in, out, o, s);
    });
  if (in.dtype == DType::f32 && out.dtype == DType::bf16) return call_typed<kOp, float, bf16_t>(in, out, o, s);
  if (in.dtype == DType::bf16 && out.dtype == DType::f32) return call_typed<kOp, bf16_t, float>(in, out, o, s);
  FAIL("dtype pair not instantiated by the tests");
  return {};
}

namespace detail_rows {

inline double draw(std::mt19937_64& rng, const RowCase& c, std::int64_t row, std::int64_t col) {
  std::normal_distribution<double> normal(0.0, 1.0);
  switch (c.fill) {
    case Fill::big_mean: return 1e4 + normal(rng);
    case Fill::masked_tail: return col <= (row * 7919) % c.cols ? 2.0 * normal(rng) : -INFINITY;
    case Fill::block_means: {
      if (col == 0) return 4e3 + normal(rng);
      const std::uint64_t block = std::uint64_t(row) * 1000003u + std::uint64_t(col / 64);
      return ((block * 0x9e3779b97f4a7c15ull) >> 63 ? 1e3 : -1e3) + normal(rng);
    }
    case Fill::neg_inf_rows:
      if (row % 3 == 0) return -INFINITY;
      return (rng() % 4 == 0) ? -INFINITY : 2.0 * normal(rng);
    default: return c.op == RowOp::softmax ? 2.0 * normal(rng) : normal(rng);
  }
}

}  // namespace detail_rows

// Runs `c` once with inputs drawn from `seed`; `rows_view` lets a caller run a sub-range of the same
// buffers (batch invariance: row r alone at the same address as inside the full call).
template <RowOp kOp>
RowRun run_row_case(RowCase c, std::uint64_t seed, std::int64_t first_row = 0, std::int64_t row_count = -1) {
  c.op = kOp;
  INFO("seed " << seed << " op " << int(c.op) << " " << dtype_name(c.in) << "->" << dtype_name(c.out) << " "
               << c.rows << "x" << c.cols);
  std::mt19937_64 rng(seed);
  const std::int64_t in_stride = c.in_stride ? c.in_stride : c.cols;
  const std::int64_t out_stride = c.in_place ? in_stride : (c.out_stride ? c.out_stride : c.cols);
  const DType out_t = c.in_place ? c.in : c.out;
  const std::size_t in_elems = std::size_t(std::max<std::int64_t>(c.rows, 1) * in_stride);
  const std::int64_t res_stride = c.residual_stride ? c.residual_stride : in_stride;
  const std::size_t res_elems = std::size_t(std::max<std::int64_t>(c.rows, 1) * res_stride);
  const std::size_t out_elems = std::size_t(std::max<std::int64_t>(c.rows, 1) * out_stride);

  // Inputs, rounded to their dtypes on the host so the reference sees exactly what the GPU sees.
  HostArray h_in(c.in, in_elems), h_res(c.in, res_elems);
  for (std::size_t i = 0; i < in_elems; ++i)
    h_in.set(i, detail_rows::draw(rng, c, std::int64_t(i) / in_stride, std::int64_t(i) % in_stride));
  if (c.fill == Fill::nan_rows)
    for (std::int64_t r = 0; r < c.rows; r += 5) h_in.set(std::size_t(r * in_stride + (r * 7919) % c.cols), NAN);
  std::normal_distribution<double> small(0.0, 0.5);
  if (c.residual)
    for (std::size_t i = 0; i < res_elems; ++i) h_res.set(i, small(rng));

  const DType wt = c.weight.value_or(c.param_dtype.value_or(DType::f32));
  HostArray h_w(wt, std::size_t(c.cols)), h_b(wt, std::size_t(c.cols));
  for (std::int64_t i = 0; i < c.cols; ++i) {
    h_w.set(std::size_t(i), 1.0 + small(rng));
    h_b.set(std::size_t(i), small(rng));
  }
  const std::int64_t table_rows = 6, table_stride = 2 * c.cols + 8;  // scale and shift share a table row
  HostArray h_table(wt, std::size_t(table_rows * table_stride));
  for (std::size_t i = 0; i < h_table.size(); ++i) h_table.set(i, 0.3 * small(rng));
  std::vector<std::int32_t> h_index(std::size_t(std::max<std::int64_t>(c.rows, 1)));
  for (auto& t : h_index) t = std::int32_t(rng() % table_rows);
  if (c.bad_index && c.rows > 1) h_index[1] = std::int32_t(table_rows);

  DeviceBuffer d_in(h_in.bytes(), c.in_shift * dtype_size(c.in));
  DeviceBuffer d_out(out_elems * dtype_size(out_t), c.out_shift * dtype_size(out_t));
  DeviceBuffer d_res(h_res.bytes(), (c.residual_shift < 0 ? c.in_shift : c.residual_shift) * dtype_size(c.in));
  DeviceBuffer d_res_out(h_res.bytes());
  DeviceBuffer d_w(h_w.bytes(), c.param_shift * dtype_size(wt), c.exact_params);
  DeviceBuffer d_b(h_b.bytes(), c.param_shift * dtype_size(wt), c.exact_params);
  DeviceBuffer d_table(h_table.bytes());
  DeviceBuffer d_index(h_index.size() * sizeof(std::int32_t));
  DeviceBuffer d_stats(std::size_t(std::max<std::int64_t>(c.rows, 1)) * 2 * sizeof(float));
  d_in.upload(h_in.data());
  d_res.upload(h_res.data());
  d_w.upload(h_w.data());
  d_b.upload(h_b.data());
  d_table.upload(h_table.data());
  d_index.upload(h_index.data());
  d_out.poison();
  d_res_out.poison();
  d_stats.poison();

  const std::int64_t rows = row_count < 0 ? c.rows : row_count;
  auto at = [&](const DeviceBuffer& b, std::int64_t stride, DType t) {
    return static_cast<char*>(b.get()) + std::size_t(first_row * stride) * dtype_size(t);
  };
  ConstRows in{at(d_in, in_stride, c.in), c.in, rows, c.cols, in_stride};
  Rows out = c.in_place ? Rows{at(d_in, in_stride, c.in), c.in, rows, c.cols, in_stride}
                        : Rows{at(d_out, out_stride, out_t), out_t, rows, c.cols, out_stride};
  NormOptions o;
  o.eps = c.eps;
  if (c.weight) {
    o.weight = {d_w.get(), wt, c.cols};
    o.weight_offset = c.weight_offset;
  }
  if (c.bias) o.bias = {d_b.get(), wt, c.cols};
  if (c.residual) {
    o.residual = {at(d_res, res_stride, c.in), c.in, rows, c.cols, res_stride};
    o.residual_out = c.residual_in_place ? Rows{at(d_res, res_stride, c.in), c.in, rows, c.cols, res_stride}
                                         : Rows{at(d_res_out, res_stride, c.in), c.in, rows, c.cols, res_stride};
  }
  if (c.modulation) {
    const auto* table = static_cast<const char*>(d_table.get());
    o.modulation = {table + std::size_t(c.cols) * dtype_size(wt), table, wt, table_rows, table_stride,
                    d_index.as<std::int32_t>() + first_row};
  }
  const int stat_count = c.op == RowOp::rms_norm ? 1 : 2;
  if (c.stats) o.stats = d_stats.as<float>() + first_row * stat_count;

  RowRun run;
  {
    using Policy = RowPolicy<kOp>;
    reduce::RowParams probe;
    const bool valid = reduce::validate<Policy>(in, out, o, probe).ok();
    run.vectors_aligned = valid && probe.vectors_aligned;
    run.params_aligned = valid && probe.params_aligned;
    if (valid) REQUIRE(reduce::plan_call<Policy>(in, out, o, run.plan).ok());
  }
  run.status = call_row_op<kOp>(in, out, o, nullptr);
  if (!run.status.ok()) return run;
  CHECK_LAUNCH();

  const DeviceBuffer& result = c.in_place ? d_in : d_out;
  HostArray h_out(out_t, out_elems);
  result.download(h_out.data());
  run.out_bytes.assign(static_cast<unsigned char*>(h_out.data()), static_cast<unsigned char*>(h_out.data()) + h_out.bytes());
  HostArray h_res_out(c.in, res_elems);
  const DeviceBuffer& res_result = c.residual_in_place ? d_res : d_res_out;
  if (c.residual) {
    res_result.download(h_res_out.data());
    run.residual_out_bytes.assign(static_cast<unsigned char*>(h_res_out.data()),
                                  static_cast<unsigned char*>(h_res_out.data()) + h_res_out.bytes());
  }
  std::vector<float> h_stats(std::size_t(std::max<std::int64_t>(c.rows, 1)) * 2);
  d_stats.download(h_stats.data());

  const ErrorBound bound = error_bound(out_t);
  std::vector<double> x(std::size_t(c.cols)), w, b, sc, sh;
  if (c.weight) {
    w.resize(std::size_t(c.cols));
    for (std::int64_t i = 0; i < c.cols; ++i) w[std::size_t(i)] = h_w.get(std::size_t(i));
  }
  if (c.bias) {
    b.resize(std::size_t(c.cols));
    for (std::int64_t i = 0; i < c.cols; ++i) b[std::size_t(i)] = h_b.get(std::size_t(i));
  }
  for (std::int64_t r = first_row; r < first_row + rows; ++r) {
    for (std::int64_t i = 0; i < c.cols; ++i) {
      const std::size_t k = std::size_t(r * in_stride + i);
      double v = h_in.get(k);
      if (c.residual) {
        const std::size_t rk = std::size_t(r * res_stride + i);
        v = round_to(c.in, v + h_res.get(rk));  // rounded to the input dtype, as the kernel does
        if (h_res_out.get(rk) != v && !(std::isnan(v) && std::isnan(h_res_out.get(rk)))) ++run.residual_mismatch;
      }
      x[std::size_t(i)] = v;
    }
    const std::int32_t t = h_index[std::size_t(r)];
    const bool bad = c.modulation && (t < 0 || t >= table_rows);
    if (c.modulation && !bad) {
      sc.resize(std::size_t(c.cols));
      sh.resize(std::size_t(c.cols));
      for (std::int64_t i = 0; i < c.cols; ++i) {
        sc[std::size_t(i)] = h_table.get(std::size_t(t * table_stride + c.cols + i));
        sh[std::size_t(i)] = h_table.get(std::size_t(t * table_stride + i));
      }
    } else {
      sc.clear();
      sh.clear();
    }
    const RowReference ref = reference_row(c.op, x, c.eps, w, c.weight_offset, b, sc, sh);
    double row_max = 0;
    for (double v : ref.y)
      if (std::isfinite(v)) row_max = std::max(row_max, std::fabs(v));
    for (std::int64_t i = 0; i < c.cols; ++i) {
      const std::size_t k = std::size_t(r * out_stride + i);
      if (h_out.is_poison(k) && !(bad || std::isnan(ref.y[std::size_t(i)]))) {
        ++run.unwritten;
        continue;
      }
      const double y = h_out.get(k), e = bad ? NAN : ref.y[std::size_t(i)];
      if (c.op == RowOp::softmax && x[std::size_t(i)] == -INFINITY && std::isfinite(e)) {
        // exp(-inf - max) is exactly 0 in a row with a finite max: no tolerance, not even -0
        if (!(y == 0 && !std::signbit(y))) run.max_scaled_error = INFINITY;
        continue;
      }
      if (std::isnan(e) || std::isnan(y)) {
        if (std::isnan(e) != std::isnan(y)) run.max_scaled_error = INFINITY;
        continue;
      }
      const double allowed = bound.rel * std::fabs(e) + bound.abs_of_row_max * row_max + bound.abs;
      run.max_scaled_error = std::max(run.max_scaled_error, std::fabs(y - e) / allowed);
    }
    if (c.stats && !bad) {
      // The mean of zero-mean data is a difference of large terms: bound it by the data's scale too.
      double x_scale = 0;
      for (double v : x)
        if (std::isfinite(v)) x_scale = std::max(x_scale, std::fabs(v));
      for (int s = 0; s < stat_count; ++s) {
        const double g = h_stats[std::size_t(r * stat_count + s)], e = ref.stats[s];
        if (std::isnan(e) || std::isinf(e)) {
          if (!(std::isnan(g) == std::isnan(e) && std::isinf(g) == std::isinf(e))) run.max_scaled_error = INFINITY;
          continue;
        }
        const double allowed_stat = 1e-5 * std::fabs(e) + 1e-6 * x_scale + 1e-30;
        run.max_scaled_error = std::max(run.max_scaled_error, std::fabs(g - e) / allowed_stat);
      }
    }
  }
  // Padding between rows (stride > cols) and rows outside the call must be untouched.
  for (std::int64_t r = 0; r < c.rows; ++r)
    for (std::int64_t i = 0; i < out_stride; ++i) {
      const bool in_call = r >= first_row && r < first_row + rows && i < c.cols;
      if (!c.in_place && !in_call && !h_out.is_poison(std::size_t(r * out_stride + i))) ++run.unwritten;
    }
  return run;
}

}  // namespace fusekit::test
