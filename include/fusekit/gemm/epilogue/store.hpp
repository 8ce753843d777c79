// fusekit/gemm/epilogue/store.hpp: the final nodes. They round the fp32 tile to the output
// type once and write 16 bytes at a time (output rows are 16-byte aligned, validated).
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

template <class OutT> __device__ __forceinline__ void store8(OutT* dst, const float (&v)[8]) {
  if constexpr (std::is_same_v<OutT, float>) {
    reinterpret_cast<float4*>(dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
  } else {
    union {
      OutT e[8];
      uint4 u;
    } pack;
#pragma unroll
    for (int i = 0; i < 8; ++i) pack.e[i] = from_float<OutT>(v[i]);
    *reinterpret_cast<uint4*>(dst) = pack.u;
  }
}

// out[row0 + r, col0 + c] = tile[r, c].
template <class OutT> struct StoreRows {
  // The fragment form (epilogue.hpp) may store the rounded tile through the copy engine instead:
  // apply writes every element of its rows, rounded, at out[row * ld + col], nothing else.
  using Out = OutT;
  static constexpr bool kCopiesRows = true;
  static constexpr bool kColumnLocal = true;  // epilogue.hpp
  struct Params {
    OutT* out = nullptr;
    std::int64_t ld = 0;
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
      store8(p.out + (t.row0 + r) * p.ld + t.col0 + c, v);
    });
  }
};

// Which of three `part`-wide column ranges holds global column gc: gc / part for gc < 3 * part,
// without a 64-bit division.
__device__ __forceinline__ int part_of(std::int64_t gc, std::int64_t part) {
  return int(gc >= part) + int(gc >= 2 * part);
}

// Output columns [0, 3 * part) go to three buffers of `part` columns each: q, k, v.
template <class OutT> struct StoreSplit3 {
  struct Params {
    OutT* out[3] = {nullptr, nullptr, nullptr};
    std::int64_t ld[3] = {0, 0, 0};
    std::int64_t part = 0;  // a multiple of 8, so no 8-column run straddles two buffers
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    for_each_chunk8(t, [&](int r, int c, const float (&v)[8]) {
      const std::int64_t gc = t.col0 + c;
      const int s = part_of(gc, p.part);
      store8(p.out[s] + (t.row0 + r) * p.ld[s] + (gc - s * p.part), v);
    });
  }
};

}  // namespace fusekit::gemm
