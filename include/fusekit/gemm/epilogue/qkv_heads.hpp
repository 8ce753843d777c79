// fusekit/gemm/epilogue/qkv_heads.hpp: the whole qkv epilogue as one final node. The output
// columns are `count` parts of `part_cols` each (q, k, v; or one part for a single third); each
// part has its own buffer, an optional per-head RMSNorm weight, and rotary on or off:
//   x <- x / sqrt(mean_head(x^2) + eps) * w;   then rotate-half on the first rot_dim channels.
//
// Why one node: composed from HeadRmsNorm, Rotary and StoreSplit3 the epilogue passes the
// staged tile three times with a barrier after each, and its generic per-element indexing was
// half of the 70-token kernel's instructions after the main loop (H200 profile, 2026-12-01).
// For 128-wide heads (H3) one warp owns a (row, head): 4 contiguous channels per lane, the
// rotary partner comes by a shuffle, and the result goes straight from registers to global
// memory. Other head shapes run the composed nodes. Either way the bits depend only on the
// shapes, never on M, and a single part gives the same bits as that part inside three.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/head_rmsnorm.hpp"
#include "fusekit/gemm/epilogue/rotary.hpp"
#include "fusekit/gemm/epilogue/store.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class T, class OutT> struct QkvHeads {
  struct Part {
    OutT* out = nullptr;
    std::int64_t ld = 0;
    const T* norm = nullptr;  // [head_dim]; null: no RMSNorm on this part
    bool rotary = false;
  };
  struct Params {
    Part parts[3];
    int count = 3;
    std::int64_t part_cols = 0;  // heads * head_dim, a multiple of 8
    int head_dim = 128;
    float eps = 1e-5f;
    const float* cos = nullptr;  // f32 [M, rot_dim] rows; null or rot_dim == 0: no rotary anywhere
    const float* sin = nullptr;
    std::int64_t ld_cos = 0, ld_sin = 0;
    int rot_dim = 0;
  };

  // The warp-per-head path: 4 channels per lane fill a 128-wide head, and the rotary halves are
  // whole lanes (rot_dim / 2 a multiple of 4).
  static constexpr int kLaneChannels = 4;
  __host__ __device__ static bool whole_head_lanes(const Params& p) {
    return p.head_dim == 32 * kLaneChannels && p.part_cols % p.head_dim == 0 && p.rot_dim % (2 * kLaneChannels) == 0;
  }

  __device__ static void apply(const Params& p, AccTile& t) {
    // The table loads' vector/scalar choice made once, not predicated on every row (SASS: eight
    // predicated-off scalar loads a row and lane issued beside the two vector ones).
    if (whole_head_lanes(p) && vector_tables(p))
      heads_by_warps<true>(p, t);
    else if (whole_head_lanes(p))
      heads_by_warps<false>(p, t);
    else
      composed(p, t);
  }

 private:
  static constexpr int kRowsInFlight = 2;  // rows whose cos/sin loads a warp issues together (4 spill at 168 registers; at 2 the 88 of swapped tiles' epilogue warps spill a little)

  // p.parts[s] by selects: a dynamic index into the kernel parameters would copy them to the stack.
  __device__ static Part part_at(const Params& p, int s) { return s == 0 ? p.parts[0] : s == 1 ? p.parts[1] : p.parts[2]; }

  __device__ static bool vector_tables(const Params& p) {
    return p.cos != nullptr && p.rot_dim > 0 && rows_aligned16(p.cos, p.ld_cos) && rows_aligned16(p.sin, p.ld_sin);
  }

  template <bool kVector> __device__ static void load4(float (&v)[4], const float* src) {
    if constexpr (kVector) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(src));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) v[e] = __ldg(src + e);
    }
  }

  __device__ static void store4(OutT* dst, const float (&v)[4]) {
    if constexpr (sizeof(OutT) == 4) {
      *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
      union {
        OutT e[4];
        uint2 u;
      } pack;
#pragma unroll
      for (int e = 0; e < 4; ++e) pack.e[e] = from_float<OutT>(v[e]);
      *reinterpret_cast<uint2*>(dst) = pack.u;
    }
  }

  template <bool kVectorTables> __device__ static void heads_by_warps(const Params& p, AccTile& t) {
    constexpr int V = kLaneChannels;
    const int lane = t.thread % 32, warp = t.thread / 32, warps = t.threads / 32, c = V * lane;
    const bool rotary_table = p.cos != nullptr && p.rot_dim > 0;
    // Lanes [0, half) hold x1, [half, 2 half) hold x2; each takes its partner's 4 channels.
    const int half = p.rot_dim / (2 * V), partner = lane < half ? lane + half : lane - half;
    const bool rotating_lane = lane < 2 * half;
    const float sign = lane < half ? -1.f : 1.f;  // x1' = x1 cos - x2 sin;  x2' = x2 cos + x1 sin
    // One multiply and one MUFU.RSQ a row: IEEE `/ head_dim` and `1 / sqrtf` cost three
    // branchy fix-up sequences on each row's dependency chain (SASS, thirteenth session).
    const float inv_head_dim = 1.f / static_cast<float>(p.head_dim);
    for (int h0 = 0; h0 + p.head_dim <= t.cols; h0 += p.head_dim) {
      const std::int64_t gc = t.col0 + h0;
      const int s = part_of(gc, p.part_cols);
      if (s >= p.count) return;
      const Part part = part_at(p, s);
      const bool rotate = part.rotary && rotary_table;
      float w[V];
#pragma unroll
      for (int e = 0; e < V; ++e) w[e] = part.norm != nullptr ? to_float(part.norm[c + e]) : 1.f;
      // Row pointers advanced by a step, not recomputed from 64-bit products each row (SASS: a
      // dozen integer instructions a row).
      OutT* out_row = part.out + (t.row0 + warp) * part.ld + (gc - s * p.part_cols) + c;
      const float* cos_row = rotary_table ? p.cos + (t.row0 + warp) * p.ld_cos + c : nullptr;
      const float* sin_row = rotary_table ? p.sin + (t.row0 + warp) * p.ld_sin + c : nullptr;
      const std::int64_t out_step = warps * part.ld;
      const std::int64_t cos_step = rotary_table ? warps * p.ld_cos : 0, sin_step = rotary_table ? warps * p.ld_sin : 0;
      for (int r0 = warp; r0 < t.rows; r0 += kRowsInFlight * warps, out_row += kRowsInFlight * out_step,
               cos_row += kRowsInFlight * cos_step, sin_row += kRowsInFlight * sin_step) {
        // The tables come from L2 (a row's cos/sin serve all its heads): issue several rows' loads
        // before the first use. The tile values are shared memory, read when needed.
        float cs[kRowsInFlight][V], sn[kRowsInFlight][V];
#pragma unroll
        for (int i = 0; i < kRowsInFlight; ++i) {
          const int r = r0 + i * warps;
          if (r >= t.rows) break;
          if (rotate && rotating_lane) {
            load4<kVectorTables>(cs[i], cos_row + i * cos_step);
            load4<kVectorTables>(sn[i], sin_row + i * sin_step);
          }
        }
#pragma unroll
        for (int i = 0; i < kRowsInFlight; ++i) {
          const int r = r0 + i * warps;  // uniform over the warp, so the shuffles below see every lane
          if (r >= t.rows) break;
          const float4 x = *reinterpret_cast<const float4*>(&t.at(r, h0 + c));
          float v[V] = {x.x, x.y, x.z, x.w};
          if (part.norm != nullptr) {
            float sum_sq = 0.f;
#pragma unroll
            for (int e = 0; e < V; ++e) sum_sq += v[e] * v[e];
            const float inv_rms = rsqrtf(warp_sum(sum_sq) * inv_head_dim + p.eps);
#pragma unroll
            for (int e = 0; e < V; ++e) v[e] = v[e] * inv_rms * w[e];
          }
          if (rotate) {
            float other[V];
#pragma unroll
            for (int e = 0; e < V; ++e) other[e] = sign * __shfl_sync(0xffffffffu, v[e], partner);
            if (rotating_lane) {
#pragma unroll
              for (int e = 0; e < V; ++e) v[e] = v[e] * cs[i][e] + other[e] * sn[i][e];
            }
          }
          store4(out_row + i * out_step, v);
        }
      }
    }
  }

  // Any head_dim dividing the tile, any even rot_dim: the single-purpose nodes, part by part.
  __device__ static void composed(const Params& p, AccTile& t) {
#pragma unroll
    for (int s = 0; s < 3; ++s) {
      if (s >= p.count) break;
      const Part& part = p.parts[s];
      const std::int64_t begin = s * p.part_cols, end = begin + p.part_cols;
      HeadRmsNorm<T>::apply({part.norm, p.eps, p.head_dim, begin, end}, t);
      t.sync();
      if (part.rotary) {
        Rotary::apply({p.cos, p.sin, p.ld_cos, p.ld_sin, p.rot_dim, p.head_dim, begin, end}, t);
        t.sync();
      }
    }
    // As StoreSplit3, reading the parts in place (its Params built here would live on the stack).
    for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
      const std::int64_t gc = t.col0 + c;
      const int s = part_of(gc, p.part_cols);
      const Part part = part_at(p, s);
      store8(part.out + (t.row0 + r) * part.ld + (gc - s * p.part_cols), v);
    });
  }
};

}  // namespace fusekit::gemm
