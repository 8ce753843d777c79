// fusekit/gemm/mainloop_sm80.hpp: the portable tensor-core main loop (sm_80 and newer, the
// H200 included): a multi-stage cp.async pipeline feeding ldmatrix + mma.sync m16n8k16, fp32
// accumulators in registers. Each output element sums its k-products in ascending k, in
// steps of 16, whatever the tile shape: results are bitwise independent of the tile and of M.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/operands.hpp"
#include "fusekit/gemm/ptx_sm80.hpp"

#include <cstddef>
#include <cstdint>

namespace fusekit::gemm {

template <class T, class Shape> struct MainLoopSm80 {
  static constexpr int BM = Shape::kBlockM, BN = Shape::kBlockN, BK = Shape::kBlockK, kStages = Shape::kStages;
  static constexpr int kThreads = Shape::kThreads;
  static constexpr int MI = Shape::kWarpM / 16, NI = Shape::kWarpN / 8;  // mma tiles per warp
  static_assert(BK == 32, "the shared-memory swizzle below assumes four 16-byte chunks per row");
  static_assert(NI % 2 == 0, "B fragments are loaded two n8 tiles at a time");

  static constexpr int kTileLd = BN + 8;  // fp32 staging tile; +8 floats keeps row writes conflict-free
  static constexpr std::size_t kPipelineBytes = std::size_t(kStages) * (BM + BN) * BK * sizeof(T);
  static constexpr std::size_t kStagingBytes = std::size_t(BM) * kTileLd * sizeof(float);
  static constexpr std::size_t kSmemBytes = kPipelineBytes > kStagingBytes ? kPipelineBytes : kStagingBytes;

  struct Accumulators {
    float v[MI][NI][4];
  };

  // Element offset of 16-byte chunk `chunk` of row `row` in a [rows][32] tile. XOR-ing the
  // chunk with (row / 2) % 4 puts the 8 rows an ldmatrix reads into 8 different bank groups.
  __device__ static int swizzle(int row, int chunk) { return row * BK + ((chunk ^ ((row >> 1) & 3)) * 8); }

  __device__ static void load_stage(T* sa, T* sb, const GemmOperands<T>& op, std::int64_t m0, const WeightRows& wr,
                                    std::int64_t k0) {
    constexpr int kChunks = BK / 8;
#pragma unroll
    for (int i = threadIdx.x; i < BM * kChunks; i += kThreads) {
      const int row = i / kChunks, chunk = i % kChunks;
      const std::int64_t gr = m0 + row, gk = k0 + chunk * 8;
      const bool valid = gr < op.m && gk < op.k;
      ptx::cp_async_16(sa + swizzle(row, chunk), valid ? op.a + gr * op.lda + gk : op.a, valid);
    }
#pragma unroll
    for (int i = threadIdx.x; i < BN * kChunks; i += kThreads) {
      const int row = i / kChunks, chunk = i % kChunks;
      const int h = row >= BN / 2, r = row - h * (BN / 2);
      const std::int64_t gk = k0 + chunk * 8;
      const bool valid = r < wr.count[h] && gk < op.k;
      ptx::cp_async_16(sb + swizzle(row, chunk), valid ? op.w + (wr.first[h] + r) * op.ldw + gk : op.w, valid);
    }
  }

  __device__ static void mma_stage(const T* sa, const T* sb, Accumulators& acc) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = (warp / Shape::kWarpsN) * Shape::kWarpM, wn = (warp % Shape::kWarpsN) * Shape::kWarpN;
#pragma unroll
    for (int kk = 0; kk < BK / 8; kk += 2) {  // kk counts 8-wide chunks; one m16n8k16 step = 2
      std::uint32_t af[MI][4], bfrag[NI][2];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)  // lanes 0-15: rows 0-15 at k 0-7; lanes 16-31: same rows, k 8-15
        ptx::ldmatrix_x4(af[mi], sa + swizzle(wm + mi * 16 + lane % 16, kk + lane / 16));
#pragma unroll
      for (int ni = 0; ni < NI; ni += 2) {  // matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)
        std::uint32_t r[4];
        ptx::ldmatrix_x4(r, sb + swizzle(wn + ni * 8 + (lane / 16) * 8 + lane % 8, kk + (lane / 8) % 2));
        bfrag[ni][0] = r[0];
        bfrag[ni][1] = r[1];
        bfrag[ni + 1][0] = r[2];
        bfrag[ni + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) ptx::mma_m16n8k16<T>(acc.v[mi][ni], af[mi], bfrag[ni]);
    }
  }

  // The whole k-loop for one (m0, weight rows) tile: kStages - 1 slices in flight while one is
  // multiplied. The slice loaded at step kt overwrites the one multiplied at step kt - 1, which
  // every warp has finished once it passes this step's barrier.
  __device__ static void run(unsigned char* smem, const GemmOperands<T>& op, std::int64_t m0, const WeightRows& wr,
                             Accumulators& acc) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc.v[mi][ni][j] = 0.f;

    T* sa = reinterpret_cast<T*>(smem);
    T* sb = sa + kStages * BM * BK;
    const std::int64_t k_tiles = (op.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < k_tiles) load_stage(sa + s * BM * BK, sb + s * BN * BK, op, m0, wr, s * BK);
      ptx::cp_async_commit_group();  // empty groups keep the wait count uniform
    }
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
      ptx::cp_async_wait_group<kStages - 2>();
      __syncthreads();
      const std::int64_t next = kt + kStages - 1;
      if (next < k_tiles) {
        const int s = static_cast<int>(next % kStages);
        load_stage(sa + s * BM * BK, sb + s * BN * BK, op, m0, wr, next * BK);
      }
      ptx::cp_async_commit_group();
      const int s = static_cast<int>(kt % kStages);
      mma_stage(sa + s * BM * BK, sb + s * BN * BK, acc);
    }
    ptx::cp_async_wait_group<0>();
    __syncthreads();  // the pipeline buffers become the staging tile next
  }

  // Writes the accumulator fragments into shared memory as the fp32 tile epilogues work on.
  __device__ static AccTile stage(const Accumulators& acc, unsigned char* smem, const GemmOperands<T>& op,
                                  std::int64_t m0, const WeightRows& wr) {
    float* tile = reinterpret_cast<float*>(smem);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = (warp / Shape::kWarpsN) * Shape::kWarpM, wn = (warp % Shape::kWarpsN) * Shape::kWarpN;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const int r = wm + mi * 16 + lane / 4, c = wn + ni * 8 + (lane % 4) * 2;
        *reinterpret_cast<float2*>(&tile[r * kTileLd + c]) = make_float2(acc.v[mi][ni][0], acc.v[mi][ni][1]);
        *reinterpret_cast<float2*>(&tile[(r + 8) * kTileLd + c]) = make_float2(acc.v[mi][ni][2], acc.v[mi][ni][3]);
      }
    __syncthreads();
    return AccTile::staged(tile, kTileLd, m0, op.m - m0, BM, BN / 2, wr, threadIdx.x, kThreads, 0);
  }
};

}  // namespace fusekit::gemm
