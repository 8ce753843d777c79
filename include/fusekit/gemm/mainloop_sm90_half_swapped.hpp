// fusekit/gemm/mainloop_sm90_half_swapped.hpp: few-row calls of long, narrow weights (out_proj
// and fc2 at 70 tokens) as cuBLASLt runs them: one 64-row W half (half an epilogue N-tile) a CTA
// over the whole K, the tokens as the wgmma's N (m64n72k16), 12 stages of 17 KB, no K split
// across CTAs. The K segments (split_k.hpp) fold in the registers (36 + 36 floats), so the bits
// are every other tile kind's, and nothing is exchanged after the math: the split kernels' 126
// CTAs stream the weight as fast, then spend 5.5-7.5 us on the exchange and the epilogue
// (RESULTS.md, fifteenth session). Measured (H100, fifty-first session): the bare GEMMs at 70
// tokens 29.2 us (out_proj; the split kernel 33.5, cuBLASLt 28.5) and 54.0 us (fc2; 58.0 and
// 59.0), 1.06-1.14x faster from 1 to 70 tokens. Sharing the token box across clusters of 3 CTAs
// (TMA multicast) cut L2's reads but ran 3% slower.
#pragma once

#include "fusekit/gemm/mainloop_sm90.hpp"
#include "fusekit/gemm/mainloop_sm90_swapped.hpp"

#include <cstddef>
#include <cstdint>

namespace fusekit::gemm {

template <class T, int TileRows, int Stages>
struct HalfSwappedMainLoopSm90 {
  static constexpr int kRows = 64;  // the CTA's W rows: one consumer warpgroup, one wgmma M
  static constexpr int BM = TileRows, BK = 64, kStages = Stages;
  static constexpr int kThreads = 256;  // warpgroup 0: the producer thread; warpgroup 1: the consumer
  static_assert(sizeof(T) == 2, "wgmma here takes 16-bit operands");
  static_assert(BM % 8 == 0 && BM <= 256, "a wgmma's N and a copy box's height");
  static constexpr int kABytes = BM * BK * 2, kWBytes = kRows * BK * 2;
  static_assert(kABytes % 1024 == 0, "stages stay 1024-byte aligned for the 128-byte swizzle");
  // Staged transposed for the epilogue, [token][column]: a row stride of 68 floats (4 mod 32)
  // puts a warp's 32 scalar stores in 32 banks (stage_fragment_chunk).
  static constexpr int kTileLd = kRows + 4;

  struct SharedStorage {
    alignas(1024) unsigned char a[kStages][kABytes];  // tokens x 64 k
    alignas(1024) unsigned char w[kStages][kWBytes];  // the CTA's 64 W rows x 64 k
    alignas(16) float staging[BM * kTileLd];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + room to align the base
  static_assert(kSmemBytes <= 232448, "fits an H100/H200 SM's shared memory");

  __device__ static void init(SharedStorage& s) { init_ring(s.full, s.empty, 4); }

  // Work items of an m x n call: every 64 W rows by every token tile.
  FUSEKIT_HD static constexpr std::int64_t items(std::int64_t m, std::int64_t n) {
    return (n + kRows - 1) / kRows * ((m + BM - 1) / BM);
  }

  // The token rows a stage's box holds: the call's rows rounded up to 8, at most BM. The stage's
  // rows past the box are never written in the launch (whatever shared memory held, NaN
  // included); a token row feeds only its own accumulator column, and those (tokens beyond M)
  // are never stored. (Boxes of mostly zero-filled rows beyond M made a 1-token call 1.2x slower
  // than a 70-token one: H100, RESULTS.md, fifty-first session.)
  FUSEKIT_HD static constexpr int box_rows(std::int64_t m) { return m >= BM ? BM : static_cast<int>((m + 7) / 8 * 8); }

  // Producer (one thread): k-slices [kb_begin, kb_end) of W rows [w_row, w_row + 64) and of the
  // token tile at m0 (boxes of a_rows rows). The weight is read once where one token tile
  // covers M (its lines may leave L2 first; a forced call of more rows reads each W half once a
  // token tile, from consecutive CTAs), the tokens by every CTA (they stay: launch_sm90's
  // kStreamsWeightOnce).
  __device__ static void produce(SharedStorage& s, RingPosition& pos, const CUtensorMap* a_map,
                                 const CUtensorMap* w_map, int kb_begin, int kb_end, std::int64_t m0,
                                 std::int64_t w_row, int a_rows) {
    const std::uint32_t bytes = kWBytes + a_rows * BK * 2;
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1u);
      ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], bytes);
      ptx::tma_load_2d(s.w[pos.stage], w_map, &s.full[pos.stage], kb * BK, static_cast<int>(w_row),
                       ptx::l2_evict_first());
      ptx::tma_load_2d(s.a[pos.stage], a_map, &s.full[pos.stage], kb * BK, static_cast<int>(m0),
                       ptx::l2_evict_last());
      pos.advance<kStages>();
    }
  }

  struct Accumulators {
    float v[BM / 2];  // m64nBM: 64 W rows x BM tokens
  };

  // The consumer warpgroup: its W rows times the tokens over k-slices [kb_begin, kb_end) (at
  // least one), summed from zero, one wgmma batch in flight (BatchReleaser).
  __device__ static void consume(SharedStorage& s, RingPosition& pos, int kb_begin, int kb_end, Accumulators& acc) {
    BatchReleaser release;
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      ptx::wgmma_fence();
      const std::uint64_t desc_w = ptx::smem_descriptor_sw128(s.w[pos.stage]);
      const std::uint64_t desc_x = ptx::smem_descriptor_sw128(s.a[pos.stage]);
#pragma unroll
      for (int k16 = 0; k16 < BK / 16; ++k16)
        ptx::wgmma_m64k16<T, BM>(acc.v, desc_w + 2 * k16, desc_x + 2 * k16, kb > kb_begin || k16 > 0);
      ptx::wgmma_commit_group();
      release.committed(s.empty, pos.stage);
      pos.advance<kStages>();
    }
    release.drain(s.empty);
#pragma unroll
    for (int i = 0; i < BM / 2; ++i) ptx::fence_registers(acc.v[i]);
  }

  // The whole fragment into the staging tile, transposed: tile[token][W row].
  __device__ static void stage(SharedStorage& s, const Accumulators& acc) {
    stage_fragment_chunk<0, BM>(s.staging, kTileLd, acc.v, 0);
  }
};

}  // namespace fusekit::gemm
