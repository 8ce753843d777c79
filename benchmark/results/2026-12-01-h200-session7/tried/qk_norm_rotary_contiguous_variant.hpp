// fusekit/gemm/epilogue/qk_norm_rotary.hpp: a fused QKV tile's attention transform in one pass:
// per-head RMSNorm of q and of k (each with its own weight), then rotary on both; v passes.
// The math of HeadRmsNorm followed by Rotary, but one warp owns a whole (row, head): the norm's
// sum, the rotation's partner channel and the row's cos/sin all stay in that warp, two head-rows
// at a time, with the next pair's cos/sin loads in flight meanwhile. The two separate nodes pass
// over the tile three times behind barriers and wait on each cos/sin load.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class T> struct QkNormRotary {
  struct Params {
    const T* q_weight = nullptr;  // [head_dim]; null: q is not normed
    const T* k_weight = nullptr;  // [head_dim]; null: k is not normed
    float eps = 1e-5f;
    int head_dim = 128;     // divides 128: whole heads in a tile
    std::int64_t part = 0;  // q = output columns [0, part), k = [part, 2 * part), v beyond
    const float* cos = nullptr;  // f32 [M, rot_dim], one row per token; null: no rotary
    const float* sin = nullptr;
    std::int64_t ld_cos = 0, ld_sin = 0;
    int rot_dim = 0;  // even, <= head_dim; rotate-half on the first rot_dim channels
  };

  // Lane l owns channels [l * P, l * P + P) of a head, P = head_dim / 32 (1 below 32 channels):
  // 16-byte shared-memory and cos/sin accesses for H3's 128-channel heads. The same additions
  // whichever loads run, so alignment never changes the bits.
  static constexpr int kMaxPerLane = 4;
  static constexpr int kItems = 2;  // (row, head) pairs a warp transforms together

  __device__ static void apply(const Params& p, AccTile& t) {
    const bool rotate = p.cos != nullptr && p.rot_dim > 0;
    if (t.col0 >= 2 * p.part || (!rotate && p.q_weight == nullptr && p.k_weight == nullptr)) return;  // v only
    const int hd = p.head_dim;
    if (hd == 128) return run<4>(p, t, rotate);
    if (hd == 64) return run<2>(p, t, rotate);
    return run<1>(p, t, rotate);
  }

 private:
  template <int P> __device__ static void load(float (&v)[P], const float* src) {
    if constexpr (P == 4) {
      const float4 q = *reinterpret_cast<const float4*>(src);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else if constexpr (P == 2) {
      const float2 q = *reinterpret_cast<const float2*>(src);
      v[0] = q.x, v[1] = q.y;
    } else {
      v[0] = *src;
    }
  }
  template <int P> __device__ static void store(float* dst, const float (&v)[P]) {
    if constexpr (P == 4)
      *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    else if constexpr (P == 2)
      *reinterpret_cast<float2*>(dst) = make_float2(v[0], v[1]);
    else
      *dst = v[0];
  }

  template <int P> __device__ static void run(const Params& p, AccTile& t, bool rotate) {
    const int lane = t.thread % 32, warp = t.thread / 32, warps = t.threads / 32;
    const int hd = p.head_dim, half = p.rot_dim / 2, heads = t.cols / hd, n = t.rows * heads;
    const int c = lane * P;  // this lane's first channel
    const bool active = c < hd;
    // cos/sin of this lane's channels in P-wide loads when rows allow, and all P in or all out.
    const bool trig_vector = p.rot_dim % P == 0 && (P == 1 || (rows_aligned16(p.cos, p.ld_cos) && rows_aligned16(p.sin, p.ld_sin)));
    float qw[P], kw[P];  // the same for every head-row: read once
#pragma unroll
    for (int j = 0; j < P; ++j) {
      qw[j] = p.q_weight != nullptr && active ? to_float(p.q_weight[c + j]) : 0.f;
      kw[j] = p.k_weight != nullptr && active ? to_float(p.k_weight[c + j]) : 0.f;
    }
    float cs[kItems][P], sn[kItems][P];
    auto load_trig = [&](int i0) {
#pragma unroll
      for (int u = 0; u < kItems; ++u) {
        const int i = i0 + u * warps;
        const bool on = rotate && i < n && c < p.rot_dim;
        const std::int64_t row = t.row0 + (on ? i / heads : 0);
        const float* cr = p.cos + row * p.ld_cos + c;
        const float* sr = p.sin + row * p.ld_sin + c;
        if (on && trig_vector) {
          load<P>(cs[u], cr);
          load<P>(sn[u], sr);
        } else {
#pragma unroll
          for (int j = 0; j < P; ++j) {
            const bool in = on && c + j < p.rot_dim;
            cs[u][j] = in ? cr[j] : 0.f;
            sn[u][j] = in ? sr[j] : 0.f;
          }
        }
      }
    };
    load_trig(warp);
    for (int i0 = warp; i0 < n; i0 += kItems * warps) {
      float c_now[kItems][P], s_now[kItems][P];
#pragma unroll
      for (int u = 0; u < kItems; ++u)
#pragma unroll
        for (int j = 0; j < P; ++j) c_now[u][j] = cs[u][j], s_now[u][j] = sn[u][j];
      load_trig(i0 + kItems * warps);  // the next step's, while this one computes

      float x[kItems][P];
      float* head[kItems];
      bool on[kItems];
#pragma unroll
      for (int u = 0; u < kItems; ++u) {
        const int i = i0 + u * warps;
        const std::int64_t gc = t.col0 + std::int64_t(i % heads) * hd;
        on[u] = i < n && gc < 2 * p.part;  // uniform over the warp
        head[u] = on[u] ? &t.at(i / heads, (i % heads) * hd) : t.data;
        const bool is_q = gc < p.part;
        const bool norm = on[u] && (is_q ? p.q_weight : p.k_weight) != nullptr;
        if (on[u] && active)
          load<P>(x[u], head[u] + c);
        else
#pragma unroll
          for (int j = 0; j < P; ++j) x[u][j] = 0.f;
        if (norm) {
          float sum_sq = 0.f;
#pragma unroll
          for (int j = 0; j < P; ++j) sum_sq += x[u][j] * x[u][j];
          const float inv_rms = 1.f / sqrtf(warp_sum(sum_sq) / hd + p.eps);
#pragma unroll
          for (int j = 0; j < P; ++j) x[u][j] = x[u][j] * inv_rms * (is_q ? qw[j] : kw[j]);
        }
      }
      // The rotation reads each channel's partner (c +- rot_dim / 2) from the tile: write the
      // normed values back first; the warp owns these head-rows, so __syncwarp orders it.
#pragma unroll
      for (int u = 0; u < kItems; ++u)
        if (on[u] && active) store<P>(head[u] + c, x[u]);
      if (!rotate) continue;
      __syncwarp();
#pragma unroll
      for (int u = 0; u < kItems; ++u)
#pragma unroll
        for (int j = 0; j < P; ++j) {
          const int ch = c + j;
          if (!on[u] || ch >= p.rot_dim) continue;
          // x1 = [0, half), x2 = [half, rot): y1 = x1 cos - x2 sin, y2 = x2 cos + x1 sin. Explicit
          // roundings, so the bits do not depend on how the compiler contracts this loop.
          const float partner = __fmul_rn(head[u][ch < half ? ch + half : ch - half], s_now[u][j]);
          x[u][j] = __fmaf_rn(x[u][j], c_now[u][j], ch < half ? -partner : partner);
        }
      __syncwarp();
#pragma unroll
      for (int u = 0; u < kItems; ++u)
        if (on[u] && active && c < p.rot_dim) store<P>(head[u] + c, x[u]);  // channels past rot_dim are unchanged
    }
  }
};

}  // namespace fusekit::gemm
