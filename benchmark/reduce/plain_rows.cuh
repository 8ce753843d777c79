// The simplest correct row kernel, as the baseline every fusekit row op is compared with: one CTA
// of 256 threads per row, CUB block reductions, and the row re-read from global memory on every
// pass (softmax and LayerNorm read it three times, RMSNorm twice).
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/reduce/row_params.hpp"
#include "fusekit/core/vector_io.cuh"

#include <cub/block/block_reduce.cuh>
#include <cuda/std/functional>

namespace fusekit::bench {

enum class PlainOp { softmax, rms_norm, layer_norm };

template <PlainOp kOp, class TIn, class TOut>
__global__ void __launch_bounds__(256) plain_row_kernel(const reduce::RowParams p) {
  using Reduce = cub::BlockReduce<float, 256>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ float broadcast;
  const TIn* x = static_cast<const TIn*>(p.in) + blockIdx.x * p.in_stride;
  TOut* y = static_cast<TOut*>(p.out) + blockIdx.x * p.out_stride;
  auto all_reduce = [&](float v, auto op) {
    v = Reduce(temp).Reduce(v, op);
    if (threadIdx.x == 0) broadcast = v;
    __syncthreads();
    v = broadcast;
    __syncthreads();
    return v;
  };
  float a = 0.f, b = 0.f;  // softmax: max, sum; norms: mean, rstd
  if constexpr (kOp == PlainOp::softmax) {
    float m = -INFINITY;
    for (int i = threadIdx.x; i < p.cols; i += 256) m = fmaxf(m, to_float(x[i]));
    a = all_reduce(m, [](float u, float v) { return fmaxf(u, v); });
    float s = 0.f;
    for (int i = threadIdx.x; i < p.cols; i += 256) s += expf(to_float(x[i]) - a);
    b = 1.f / all_reduce(s, cuda::std::plus<float>{});
  } else {
    if constexpr (kOp == PlainOp::layer_norm) {
      float s = 0.f;
      for (int i = threadIdx.x; i < p.cols; i += 256) s += to_float(x[i]);
      a = all_reduce(s, cuda::std::plus<float>{}) / p.cols;
    }
    float ss = 0.f;
    for (int i = threadIdx.x; i < p.cols; i += 256) {
      const float c = to_float(x[i]) - a;
      ss += c * c;
    }
    b = rsqrtf(all_reduce(ss, cuda::std::plus<float>{}) / p.cols + p.eps);
  }
  const void* scale = nullptr;
  const void* shift = nullptr;
  if (p.mod_index) {
    const std::int64_t offset = std::int64_t(p.mod_index[blockIdx.x]) * p.mod_stride * dtype_size(p.mod_dtype);
    scale = static_cast<const char*>(p.mod_scale) + offset;
    shift = static_cast<const char*>(p.mod_shift) + offset;
  }
  for (int i = threadIdx.x; i < p.cols; i += 256) {
    const float v = to_float(x[i]);
    float r = kOp == PlainOp::softmax ? expf(v - a) * b : (v - a) * b;
    if (p.weight) r *= load_as_float(p.weight, p.weight_dtype, i) + p.weight_offset;
    if (p.bias) r += load_as_float(p.bias, p.bias_dtype, i);
    if (scale) r = r * (1.f + load_as_float(scale, p.mod_dtype, i)) + load_as_float(shift, p.mod_dtype, i);
    y[i] = from_float<TOut>(r);
  }
}

template <PlainOp kOp, class TIn, class TOut> void plain_rows(const reduce::RowParams& p, cudaStream_t stream) {
  plain_row_kernel<kOp, TIn, TOut><<<unsigned(p.rows), 256, 0, stream>>>(p);
}

}  // namespace fusekit::bench
