// The baseline's epilogues: what a user of cuBLASLt must run after its bare GEMM (whose bf16
// result goes through memory) to get the same function as fusekit's fused linears. One kernel
// per stage of torch's sequence, with stages merged where torch would launch several kernels
// (gate lookup + multiply + add is one pass here, silu + multiply one pass), so the baseline is
// at least as fast as torch's eager epilogue. fp32 math, bf16 storage between stages, as torch.
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fusekit::layer_report {

namespace kernels {

constexpr int kThreads = 256;

// 8 bf16 in one 16-byte load/store.
struct alignas(16) Bf16x8 {
  bf16_t v[8];
};

// x[r, :] = x[r, :] + gate[idx[r], :] * y[r, :], 8 columns per thread (n % 8 == 0).
__global__ void gated_residual(const bf16_t* __restrict__ y, const bf16_t* __restrict__ gate,
                               const std::int32_t* __restrict__ idx, bf16_t* __restrict__ x, std::int64_t m,
                               std::int64_t n) {
  const std::int64_t vectors = m * (n / 8);
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / (n / 8), c = (i % (n / 8)) * 8;
    const Bf16x8 yv = *reinterpret_cast<const Bf16x8*>(y + r * n + c);
    const Bf16x8 gv = *reinterpret_cast<const Bf16x8*>(gate + std::int64_t(idx[r]) * n + c);
    Bf16x8 xv = *reinterpret_cast<const Bf16x8*>(x + r * n + c);
    for (int j = 0; j < 8; ++j) xv.v[j] = from_float<bf16_t>(to_float(xv.v[j]) + to_float(gv.v[j]) * to_float(yv.v[j]));
    *reinterpret_cast<Bf16x8*>(x + r * n + c) = xv;
  }
}

// out[r, c] = silu(y[r, c]) * y[r, ffn + c]: y is [m, 2 * ffn] as [gate; value] (ffn % 8 == 0).
__global__ void swiglu(const bf16_t* __restrict__ y, bf16_t* __restrict__ out, std::int64_t m, std::int64_t ffn) {
  const std::int64_t vectors = m * (ffn / 8);
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / (ffn / 8), c = (i % (ffn / 8)) * 8;
    const Bf16x8 g = *reinterpret_cast<const Bf16x8*>(y + r * 2 * ffn + c);
    const Bf16x8 v = *reinterpret_cast<const Bf16x8*>(y + r * 2 * ffn + ffn + c);
    Bf16x8 o;
    for (int j = 0; j < 8; ++j) {
      const float gf = to_float(g.v[j]);
      o.v[j] = from_float<bf16_t>(gf / (1.f + expf(-gf)) * to_float(v.v[j]));
    }
    *reinterpret_cast<Bf16x8*>(out + r * ffn + c) = o;
  }
}

// One warp per head row: q (heads [0, heads) of y) and k (heads [heads, 2 heads)) normalized over
// head_dim with their weights, written to the dense q and k buffers [m, heads * head_dim].
__global__ void qk_head_rmsnorm(const bf16_t* __restrict__ y, std::int64_t ldy, bf16_t* __restrict__ q,
                                bf16_t* __restrict__ k, const bf16_t* __restrict__ q_weight,
                                const bf16_t* __restrict__ k_weight, std::int64_t m, int heads, int head_dim,
                                float eps) {
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = m * 2 * heads;
  for (std::int64_t w = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32; w < warps;
       w += std::int64_t(gridDim.x) * blockDim.x / 32) {
    const std::int64_t r = w / (2 * heads);
    const int head = static_cast<int>(w % (2 * heads));  // 0..heads-1: q, heads..2 heads-1: k
    const bool is_k = head >= heads;
    const bf16_t* in = y + r * ldy + std::int64_t(head) * head_dim;
    bf16_t* out = (is_k ? k : q) + r * std::int64_t(heads) * head_dim + std::int64_t(head - (is_k ? heads : 0)) * head_dim;
    const bf16_t* weight = is_k ? k_weight : q_weight;
    float ss = 0.f;
    for (int c = lane; c < head_dim; c += 32) ss += to_float(in[c]) * to_float(in[c]);
    for (int offset = 16; offset > 0; offset /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, offset);
    const float inv = rsqrtf(ss / head_dim + eps);
    for (int c = lane; c < head_dim; c += 32) out[c] = from_float<bf16_t>(to_float(in[c]) * inv * to_float(weight[c]));
  }
}

// Rotate-half rotary, in place, on the first rot channels of every head of q and k (dense
// [m, heads * head_dim]); cos/sin f32 [m, rot]. One thread per (row, tensor, head, pair).
__global__ void qk_rotary(bf16_t* __restrict__ q, bf16_t* __restrict__ k, const float* __restrict__ cos,
                          const float* __restrict__ sin, std::int64_t m, int heads, int head_dim, int rot) {
  const int half = rot / 2;
  const std::int64_t pairs = m * 2 * heads * half;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < pairs;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int j = static_cast<int>(i % half);
    const std::int64_t head_row = i / half;  // (r, tensor, head)
    const int head = static_cast<int>(head_row % heads);
    const bool is_k = (head_row / heads) % 2 == 1;
    const std::int64_t r = head_row / (2 * heads);
    bf16_t* t = (is_k ? k : q) + r * std::int64_t(heads) * head_dim + std::int64_t(head) * head_dim;
    const float x1 = to_float(t[j]), x2 = to_float(t[j + half]);
    t[j] = from_float<bf16_t>(x1 * cos[r * rot + j] - x2 * sin[r * rot + j]);
    t[j + half] = from_float<bf16_t>(x2 * cos[r * rot + j + half] + x1 * sin[r * rot + j + half]);
  }
}

}  // namespace kernels

namespace detail {

inline int grid_for(std::int64_t work_items) {
  const std::int64_t blocks = (work_items + kernels::kThreads - 1) / kernels::kThreads;
  return static_cast<int>(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

inline void require_vector_shape(std::int64_t cols, const void* const* pointers, int count, const char* what) {
  bool ok = cols % 8 == 0;
  for (int i = 0; i < count; ++i) ok = ok && reinterpret_cast<std::uintptr_t>(pointers[i]) % 16 == 0;
  if (!ok) throw std::runtime_error(std::string(what) + ": needs 16-byte aligned buffers and a multiple of 8 columns");
}

}  // namespace detail

// x += gate[idx[row]] * y, all [m, n] dense (gate [T, n]).
inline void unfused_gated_residual(const bf16_t* y, const bf16_t* gate, const std::int32_t* idx, bf16_t* x,
                                   std::int64_t m, std::int64_t n, cudaStream_t stream) {
  const void* p[] = {y, gate, x};
  detail::require_vector_shape(n, p, 3, "unfused_gated_residual");
  kernels::gated_residual<<<detail::grid_for(m * n / 8), kernels::kThreads, 0, stream>>>(y, gate, idx, x, m, n);
  detail::check_launch("gated_residual kernel");
}

// out [m, ffn] = silu(y[:, :ffn]) * y[:, ffn:].
inline void unfused_swiglu(const bf16_t* y, bf16_t* out, std::int64_t m, std::int64_t ffn, cudaStream_t stream) {
  const void* p[] = {y, out};
  detail::require_vector_shape(ffn, p, 2, "unfused_swiglu");
  kernels::swiglu<<<detail::grid_for(m * ffn / 8), kernels::kThreads, 0, stream>>>(y, out, m, ffn);
  detail::check_launch("swiglu kernel");
}

// q, k = rotary(head_rmsnorm(y's q and k thirds)); v stays where the GEMM wrote it (torch's
// split is a view): two kernels after the GEMM.
inline void unfused_qkv(const bf16_t* y, bf16_t* q, bf16_t* k, const bf16_t* q_weight, const bf16_t* k_weight,
                        const float* cos, const float* sin, std::int64_t m, int heads, int head_dim, int rot,
                        float eps, cudaStream_t stream) {
  const std::int64_t ldy = 3 * std::int64_t(heads) * head_dim;
  kernels::qk_head_rmsnorm<<<detail::grid_for(m * 2 * heads * 32), kernels::kThreads, 0, stream>>>(
      y, ldy, q, k, q_weight, k_weight, m, heads, head_dim, eps);
  detail::check_launch("qk_head_rmsnorm kernel");
  if (rot == 0) return;
  kernels::qk_rotary<<<detail::grid_for(m * 2 * heads * (rot / 2)), kernels::kThreads, 0, stream>>>(
      q, k, cos, sin, m, heads, head_dim, rot);
  detail::check_launch("qk_rotary kernel");
}

}  // namespace fusekit::layer_report
