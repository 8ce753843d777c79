// Benchmark cases for the row ops: fusekit's kernel and the plain baseline on the same buffers,
// validated against the float64 reference of the tests.
#pragma once

#include "device_array.hpp"
#include "env_choice.hpp"
#include "harness.hpp"
#include "plain_rows.cuh"
#include "reduce/reference.hpp"
#include "reduce/row_policy.hpp"

#include "fusekit/reduce.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusekit::bench {

using test::RowOp;

struct RowShapeSpec {
  std::int64_t rows, cols;
  bool modulate = false;  // MiniMax-H3 norm: RMSNorm with weight, then adaLN from a 3-row table
};

constexpr const char* op_name(RowOp op) {
  return op == RowOp::softmax ? "softmax" : op == RowOp::rms_norm ? "rms_norm" : "layer_norm";
}
template <RowOp kOp> constexpr PlainOp plain_of() {
  return kOp == RowOp::softmax ? PlainOp::softmax : kOp == RowOp::rms_norm ? PlainOp::rms_norm : PlainOp::layer_norm;
}

// FUSEKIT_ROW_PARAMS=all|weight|none: which of the op's parameters the norms' cases pass (all:
// RMSNorm's weight, LayerNorm's weight and bias), to time what the epilogue's reads cost. The
// reference follows. Unset, all.
enum class RowParamSet : std::uint8_t { all, weight, none };
inline std::atomic<RowParamSet>& row_param_set() {
  static std::atomic<RowParamSet> set{RowParamSet::all};
  return set;
}
inline void apply_row_params_override() {
  apply_env_choice("FUSEKIT_ROW_PARAMS", row_param_set(),
                   {{"all", RowParamSet::all}, {"weight", RowParamSet::weight}, {"none", RowParamSet::none}});
}
template <RowOp kOp> bool passes_weight() { return kOp != RowOp::softmax && row_param_set().load() != RowParamSet::none; }
template <RowOp kOp> bool passes_bias() { return kOp == RowOp::layer_norm && row_param_set().load() == RowParamSet::all; }

// Everything one case owns on the device: `sets` copies of input and output, weight, bias, table.
template <class T> struct RowBuffers {
  static constexpr std::int64_t kTableRows = 3, kTableChunks = 6;  // H3: 6 chunks per (timestep, modality) row
  RowShapeSpec shape;
  int sets;
  std::size_t elems;
  DeviceArray in, out, weight, bias, table, index;
  std::vector<T> h_in, h_weight, h_bias, h_table;
  std::vector<std::int32_t> h_index;

  RowBuffers(const RowShapeSpec& s, int sets_)
      : shape(s), sets(sets_), elems(std::size_t(s.rows * s.cols)), in(elems * sizeof(T) * sets_),
        out(elems * sizeof(T) * sets_), weight(std::size_t(s.cols) * sizeof(T)), bias(std::size_t(s.cols) * sizeof(T)),
        table(std::size_t(kTableRows * kTableChunks * s.cols) * sizeof(T)),
        index(std::size_t(s.rows) * sizeof(std::int32_t)) {
    std::mt19937_64 rng(std::random_device{}());
    std::normal_distribution<float> normal(0.f, 1.f);
    auto fill = [&](std::vector<T>& v, std::size_t n, float mean, float sd) {
      v.resize(n);
      for (auto& x : v) x = from_float<T>(mean + sd * normal(rng));
    };
    fill(h_in, elems, 0.f, 2.f);
    fill(h_weight, std::size_t(s.cols), 1.f, 0.2f);
    fill(h_bias, std::size_t(s.cols), 0.f, 0.2f);
    fill(h_table, std::size_t(kTableRows * kTableChunks * s.cols), 0.f, 0.3f);
    h_index.resize(std::size_t(s.rows));
    for (auto& t : h_index) t = std::int32_t(rng() % kTableRows);
    for (int k = 0; k < sets; ++k)
      FUSEKIT_BENCH_CUDA(cudaMemcpy(static_cast<T*>(in.p) + k * elems, h_in.data(), elems * sizeof(T), cudaMemcpyHostToDevice));
    FUSEKIT_BENCH_CUDA(cudaMemcpy(weight.p, h_weight.data(), h_weight.size() * sizeof(T), cudaMemcpyHostToDevice));
    FUSEKIT_BENCH_CUDA(cudaMemcpy(bias.p, h_bias.data(), h_bias.size() * sizeof(T), cudaMemcpyHostToDevice));
    FUSEKIT_BENCH_CUDA(cudaMemcpy(table.p, h_table.data(), h_table.size() * sizeof(T), cudaMemcpyHostToDevice));
    FUSEKIT_BENCH_CUDA(cudaMemcpy(index.p, h_index.data(), h_index.size() * 4, cudaMemcpyHostToDevice));
  }

  ConstRows in_rows(int k) const { return {static_cast<const T*>(in.p) + k * elems, dtype_v<T>, shape.rows, shape.cols, 0}; }
  Rows out_rows(int k) const { return {static_cast<T*>(out.p) + k * elems, dtype_v<T>, shape.rows, shape.cols, 0}; }

  template <RowOp kOp> NormOptions options() const {
    NormOptions o;
    if (passes_weight<kOp>()) o.weight = {weight.p, dtype_v<T>, shape.cols};
    if (passes_bias<kOp>()) o.bias = {bias.p, dtype_v<T>, shape.cols};
    if (shape.modulate) {
      const T* t = static_cast<const T*>(table.p);
      // H3 order within a table row: shift_msa, scale_msa, gate_msa, ...
      o.modulation = {t + shape.cols, t, dtype_v<T>, kTableRows, kTableChunks * shape.cols,
                      static_cast<const std::int32_t*>(index.p)};
    }
    return o;
  }

  // Normwise relative error of set 0's output against the float64 reference.
  template <RowOp kOp> Validation validate() const {
    std::vector<T> h_out(elems);
    FUSEKIT_BENCH_CUDA(cudaMemcpy(h_out.data(), out.p, elems * sizeof(T), cudaMemcpyDeviceToHost));
    const std::size_t n = std::size_t(shape.cols);
    std::vector<double> x(n), w, b, sc, sh;
    if (passes_weight<kOp>()) to_double(w, h_weight);
    if (passes_bias<kOp>()) to_double(b, h_bias);
    double err = 0, norm = 0;
    for (std::int64_t r = 0; r < shape.rows; ++r) {
      for (std::size_t i = 0; i < n; ++i) x[i] = to_float(h_in[std::size_t(r) * n + i]);
      if (shape.modulate) {
        const std::size_t base = std::size_t(h_index[std::size_t(r)] * kTableChunks * shape.cols);
        sc.resize(n);
        sh.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
          sh[i] = to_float(h_table[base + i]);
          sc[i] = to_float(h_table[base + n + i]);
        }
      }
      const auto ref = test::reference_row(kOp, x, 1e-5, w, 0.0, b, sc, sh);
      for (std::size_t i = 0; i < n; ++i) {
        const double d = to_float(h_out[std::size_t(r) * n + i]) - ref.y[i];
        err += d * d;
        norm += ref.y[i] * ref.y[i];
      }
    }
    Validation v;
    v.rel_err = std::sqrt(err / norm);
    const double tolerance = sizeof(T) == 4 ? 1e-5 : 8e-3;
    v.ok = std::isfinite(v.rel_err) && v.rel_err <= tolerance;
    if (!v.ok) v.message = "relative error " + std::to_string(v.rel_err) + " above " + std::to_string(tolerance);
    return v;
  }

  Validation validate_copy() const {
    std::vector<T> h_out(elems);
    FUSEKIT_BENCH_CUDA(cudaMemcpy(h_out.data(), out.p, elems * sizeof(T), cudaMemcpyDeviceToHost));
    Validation v;
    v.ok = std::memcmp(h_out.data(), h_in.data(), elems * sizeof(T)) == 0;
    if (!v.ok) v.message = "copy differs from its input";
    return v;
  }

  static void to_double(std::vector<double>& d, const std::vector<T>& s) {
    d.resize(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) d[i] = to_float(s[i]);
  }
};

// The row kernel the library plans for set 0's call (reduce::plan_call), in a few words.
template <RowOp kOp, class T> std::string planned_kernel(const RowBuffers<T>& b) {
  reduce::RowPlan plan;
  if (!reduce::plan_call<test::RowPolicy<kOp>, DTypes<T>>(b.in_rows(0), b.out_rows(0), b.template options<kOp>(), plan).ok())
    return {};
  return reduce::describe(plan);
}

// Registers fusekit's kernel and the plain baseline for one op, dtype and shape.
template <RowOp kOp, class T>
void register_row_op(const std::string& suite, const RowShapeSpec& shape, std::vector<Mode> modes) {
  const double bytes = double(shape.rows * shape.cols) * sizeof(T) * 2;
  const std::string name = shape.modulate ? std::string(op_name(kOp)) + "_modulate" : op_name(kOp);
  const std::string dims = suite == "h3_norm" ? "tokens=" + std::to_string(shape.rows)
                                               : std::to_string(shape.rows) + "x" + std::to_string(shape.cols);
  for (const char* impl : {"fusekit", "plain", "copy"}) {
    CaseSpec spec{suite, name, sizeof(T) == 4 ? "f32" : "bf16", dims, impl, bytes, 0, bytes, modes};
    const std::string kind = impl;
    register_case(spec, [shape, kind](int sets) {
      auto buffers = std::make_shared<RowBuffers<T>>(shape, sets);
      Instance instance;
      instance.keepalive = buffers;
      instance.validate = [b = buffers.get()] { return b->template validate<kOp>(); };
      if (kind == "copy") {
        // The copy ceiling at this very size: the same bytes read and written, launched the same way.
        instance.launch = [b = buffers.get()](cudaStream_t stream, int set) {
          FUSEKIT_BENCH_CUDA(cudaMemcpyAsync(b->out_rows(set).data, b->in_rows(set).data, b->elems * sizeof(T),
                                  cudaMemcpyDeviceToDevice, stream));
        };
        instance.validate = [b = buffers.get()] { return b->validate_copy(); };
      } else if (kind == "plain") {
        instance.launch = [b = buffers.get()](cudaStream_t stream, int set) {
          reduce::RowParams p;
          const NormOptions o = b->template options<kOp>();
          using Checks = std::conditional_t<kOp == RowOp::softmax, reduce::SoftmaxPolicy, reduce::LayerNormPolicy>;
          if (!reduce::validate<Checks>(b->in_rows(set), b->out_rows(set), o, p).ok())
            throw std::runtime_error("plain: bad arguments");
          plain_rows<plain_of<kOp>(), T, T>(p, stream);
        };
      } else {
        instance.label = planned_kernel<kOp>(*buffers);
        instance.launch = [b = buffers.get()](cudaStream_t stream, int set) {
          const NormOptions o = b->template options<kOp>();
          Status s;
          if constexpr (kOp == RowOp::softmax) s = softmax<DTypes<T>>(b->in_rows(set), b->out_rows(set), {}, stream);
          else if constexpr (kOp == RowOp::rms_norm) s = rms_norm<DTypes<T>>(b->in_rows(set), b->out_rows(set), o, stream);
          else s = layer_norm<DTypes<T>>(b->in_rows(set), b->out_rows(set), o, stream);
          if (!s.ok()) throw std::runtime_error(s.to_string());
        };
      }
      return instance;
    });
  }
}

// FUSEKIT_ROW_KERNEL=registers|staged forces the row kernel (reduce/dispatch.cuh), to measure the
// two against each other; unset, the library decides.
inline void apply_row_kernel_override() {
  const char* kernel = std::getenv("FUSEKIT_ROW_KERNEL");
  if (kernel == nullptr) return;
  const std::string k = kernel;
  reduce::row_kernel_choice() = k == "registers" ? reduce::RowKernel::registers
                                : k == "staged"  ? reduce::RowKernel::staged
                                                 : reduce::RowKernel::automatic;
  std::fprintf(stderr, "fusekit_bench_reduce: FUSEKIT_ROW_KERNEL=%s\n", kernel);
}

// FUSEKIT_CLUSTER_OVERLAP=never|one_wave|always: PDL on cluster launches (reduce::cluster_overlap()).
inline void apply_cluster_overlap_override() {
  using reduce::ClusterOverlap;
  apply_env_choice("FUSEKIT_CLUSTER_OVERLAP", reduce::cluster_overlap(),
                   {{"never", ClusterOverlap::never}, {"one_wave", ClusterOverlap::one_wave},
                    {"always", ClusterOverlap::always}});
}

// FUSEKIT_SLICE_KB=16|32|64: the sliced rows' slice size (reduce::slice_bytes());
// FUSEKIT_SLICE_VPT=1|2|4|8|16: their vectors a thread (reduce::slice_vectors_per_thread());
// FUSEKIT_SLICE_PARAMS=auto|never|always: whether they stage their parameters (reduce::sliced_params()).
// Unset, the library's choice.
inline void apply_slice_override() {
  using reduce::SlicedParams;
  apply_env_choice("FUSEKIT_SLICE_PARAMS", reduce::sliced_params(),
                   {{"auto", SlicedParams::automatic}, {"never", SlicedParams::never}, {"always", SlicedParams::always}});
  apply_env_choice("FUSEKIT_SLICE_KB", reduce::slice_bytes(), {{"16", 16 << 10}, {"32", 32 << 10}, {"64", 64 << 10}});
  apply_env_choice("FUSEKIT_SLICE_VPT", reduce::slice_vectors_per_thread(),
                   {{"1", 1}, {"2", 2}, {"4", 4}, {"8", 8}, {"16", 16}});
}

// FUSEKIT_PHASED=off|on|prefetch: which kernels take 16-bit rows off their alignment with aligned
// parameters (reduce::phased_rows()); FUSEKIT_SHARE_PARAMS=none|phased|all: which kernels' CTAs of
// several warp rows share the parameters (reduce::row_param_sharing()). Unset, the library's choice.
inline void apply_phased_override() {
  using reduce::PhasedRows;
  apply_env_choice("FUSEKIT_PHASED", reduce::phased_rows(),
                   {{"off", PhasedRows::off}, {"on", PhasedRows::on}, {"prefetch", PhasedRows::prefetch}});
  using reduce::ParamSharing;
  apply_env_choice("FUSEKIT_SHARE_PARAMS", reduce::row_param_sharing(),
                   {{"none", ParamSharing::none}, {"phased", ParamSharing::phased}, {"all", ParamSharing::all}});
}

// FUSEKIT_ROW_VPT=2|4|8: vectors a thread of the register kernels' one-CTA rows
// (reduce::row_vectors_per_thread()). Unset, the library's layout.
inline void apply_row_layout_override() {
  apply_env_choice("FUSEKIT_ROW_VPT", reduce::row_vectors_per_thread(), {{"2", 2}, {"4", 4}, {"8", 8}});
}

// FUSEKIT_ROW_HELPERS=off|on: whether calls of few rows give each row's CTA a second group of
// threads for its write pass (reduce::row_write_helpers()). Unset, the library's choice.
inline void apply_row_helpers_override() {
  apply_env_choice("FUSEKIT_ROW_HELPERS", reduce::row_write_helpers(), {{"off", false}, {"on", true}});
}

// The default suites for one dtype: the seed audit's shapes in all four modes, and a bandwidth
// sweep (>= 8M elements, N from 1024 to 262144) in GPU throughput mode.
template <class T> void register_row_suites() {
  apply_row_kernel_override();
  apply_cluster_overlap_override();
  apply_slice_override();
  apply_phased_override();
  apply_row_layout_override();
  apply_row_helpers_override();
  apply_row_params_override();
  const std::vector<Mode> all(std::begin(kAllModes), std::end(kAllModes));
  const std::vector<Mode> throughput{Mode::gpu_throughput};
  const RowShapeSpec seed_shapes[] = {{37, 1537}, {256, 3072}, {768, 6144}, {1024, 4096}};
  const RowShapeSpec sweep[] = {{8192, 1024}, {5462, 1537}, {2048, 4096}, {1561, 5376},
                                {1024, 8192}, {512, 16384}, {128, 65536}, {8, 262144}, {32, 262144}};
  for (const auto& s : seed_shapes) {
    register_row_op<RowOp::softmax, T>("reduce", s, all);
    register_row_op<RowOp::rms_norm, T>("reduce", s, all);
    register_row_op<RowOp::layer_norm, T>("reduce", s, all);
  }
  for (const auto& s : sweep) {
    register_row_op<RowOp::softmax, T>("reduce_bw", s, throughput);
    register_row_op<RowOp::rms_norm, T>("reduce_bw", s, throughput);
    register_row_op<RowOp::layer_norm, T>("reduce_bw", s, throughput);
  }
}

}  // namespace fusekit::bench
