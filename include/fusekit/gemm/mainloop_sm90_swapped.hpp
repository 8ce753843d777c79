// fusekit/gemm/mainloop_sm90_swapped.hpp: the Hopper main loop with the operands' roles swapped:
// W's rows are the wgmma's M (64 a consumer warpgroup) and the tokens its N ("swap AB"). A
// wgmma's N may be any multiple of 8, so the tile's height in tokens (BT) need not be a multiple
// of 64 and can follow M: 925 tokens are 6 tiles of 160 (960 rows computed) instead of 8 of 128
// (1024, 29 rows in the last), and H3's qkv_proj then takes 8 rounds of 160 x 128 tiles on 132
// SMs instead of 6 of 128 x 256, 302 instead of 353 us on the H200 (RESULTS.md, fifteenth
// session; cuBLASLt's kernels for these shapes hold the tokens in the MMA's N too); fc1 at 925
// tokens fits 4 tiles of 232 (928 rows), and 70 tokens one tile of 72 (the 128 x 256 tiles' 72-row
// A stages leave 56 of each consumer's 128 MMA rows empty).
//
// Same bits as MainLoopSm90: each output element is one dot product, summed by wgmma in
// ascending k in k16 steps whichever operand holds the token (measured on the H200: RESULTS.md,
// eighth session, "swap AB"), so a row's result still does not depend on M. The CTA tile is one
// epilogue N-tile: consumer cw multiplies its W-row half cw (WeightRows::first[cw]).
//
// Long, narrow weights cut K into segments (split_k.hpp). 160-token tiles fold them in the
// registers: a second fragment holds ((p0 + p1) + ...) of the segments so far, the
// additions of split_k.hpp in its order (so the bits are the other tiles' bits), and is what the
// tile stages (a copy of the accumulators where K is one segment). The kernel hands a tile's
// epilogue over from that fragment (kernel_sm90_swapped.hpp), so it stays live beside the next
// tile's accumulators through that tile's first segment. 232-token tiles have no registers for it.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/mainloop_sm90.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace fusekit::gemm {

// Writes chunk C (tokens [C * ChunkRows, ...)) of this thread's part `v` of an m64n(2 Floats)
// fragment (64 W rows by 2 Floats tokens) into a staging tile [token][column], `ld` floats a row,
// transposed: the wgmma's n8 block j holds W rows r and r + 8 (columns col0 + r, + 8) and tokens
// 8j + c, + 1 (c: 2 x the lane's quad index) in v[4j .. 4j + 3]; the chunk's first token lands
// on row 0.
template <int C, int ChunkRows, int Floats>
__device__ __forceinline__ void stage_fragment_chunk(float* staging, int ld, const float (&v)[Floats], int col0) {
  constexpr int kBlocks = Floats / 4, First = C * ChunkRows / 8;
  constexpr int Last = (C + 1) * ChunkRows / 8 < kBlocks ? (C + 1) * ChunkRows / 8 : kBlocks;
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int col = col0 + warp * 16 + lane / 4;
#pragma unroll
  for (int j = First; j < Last; ++j) {
    const int row = (j - First) * 8 + (lane % 4) * 2;
    float* p = &staging[row * ld + col];
    p[0] = v[4 * j];
    p[ld] = v[4 * j + 1];
    p[8] = v[4 * j + 2];
    p[ld + 8] = v[4 * j + 3];
  }
}

// After each K segment: running = acc (the first) or running + acc, split_k.hpp's additions in
// its order (so the same bits as every other tile kind). Only reads the accumulators (an
// accumulator that other instructions define serializes ptxas's wgmma pipeline).
template <int Floats>
__device__ __forceinline__ void fold_segment(float (&running)[Floats], const float (&acc)[Floats], bool first) {
#pragma unroll
  for (int i = 0; i < Floats; ++i) running[i] = first ? acc[i] : running[i] + acc[i];
}

template <class T, int TileRows, int Stages, int ChunkRows = (TileRows % 16 == 0 ? TileRows / 2 : TileRows)>
struct SwappedMainLoopSm90 {
  static constexpr int kConsumers = 2;
  static constexpr int kSubN = 128, kHalfRows = kSubN / 2;  // the N-tile: two 64-row W halves
  static constexpr int BM = TileRows, BK = 64, kStages = Stages;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static_assert(sizeof(T) == 2, "wgmma here takes 16-bit operands");
  static_assert(BM % 8 == 0 && BM <= 256, "a wgmma's N and a copy box's height");
  static constexpr int kABytes = BM * BK * 2, kHalfBytes = kHalfRows * BK * 2, kBBytes = 2 * kHalfBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // The epilogue sees the tile in chunks of kChunkRows tokens (a chunk of n8 blocks of the
  // fragment), staged transposed: tile[token][column]. A row stride of 132 floats (4 mod 16)
  // puts a warp's 32 scalar stores of one fragment element in 32 distinct banks.
  static constexpr int kChunkRows = ChunkRows, kChunks = (BM + kChunkRows - 1) / kChunkRows;
  static constexpr int kTileLd = kSubN + 4;
  static_assert(kChunkRows % 8 == 0);
  // A second m64n160 fragment for the segments' running sum fits a consumer's 208 registers (no
  // spill; kernel_sm90_swapped.hpp); m64n232's would not. (The peeled first wgmma below is m64n160k16.)
  static constexpr bool kFoldsSegments = BM == 160;

  struct SharedStorage {
    alignas(1024) unsigned char a[kStages][kABytes];  // tokens x 64 k
    alignas(1024) unsigned char b[kStages][kBBytes];  // the N-tile's 128 W rows x 64 k
    alignas(1024) float staging[kChunkRows * kTileLd];  // 1024: the paired tile is a 128-byte-swizzled copy box
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
    // The staging tile handed from the consumers to the epilogue warps (kernel_sm90_swapped.hpp):
    // staged_full completes once every consumer thread wrote its part of a chunk, staged_empty
    // once the epilogue warps are done reading it.
    std::uint64_t staged_full;
    std::uint64_t staged_empty;
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + room to align the base
  static_assert(kABytes % 1024 == 0, "stages stay 1024-byte aligned for the 128-byte swizzle");

  // A CTA's last tile staged whole, [BM tokens][kTileLd floats], over the token stages of the
  // ring (the kernel calls it once every k-slice has been read).
  __device__ static float* whole_tile_staging(SharedStorage& s) {
    static_assert(sizeof(float) * BM * kTileLd <= sizeof(s.a), "the whole tile fits the token stages");
    return reinterpret_cast<float*>(&s.a[0][0]);
  }

  // `readers`: the threads that read a handed-over chunk (each arrives on staged_empty).
  __device__ static void init(SharedStorage& s, unsigned readers) {
    ptx::mbarrier_init(&s.staged_full, kConsumers * 128);
    ptx::mbarrier_init(&s.staged_empty, readers);
    init_ring(s.full, s.empty, kConsumers * 4);  // ends with the fence that publishes every barrier
  }

  // Producer (one thread): k-slices [kb_begin, kb_end) of one tile, tokens [m0, m0 + BM) and both W halves.
  __device__ static void produce(SharedStorage& s, RingPosition& pos, const CUtensorMap* a_map,
                                 const CUtensorMap* w_map, int kb_begin, int kb_end, std::int64_t m0,
                                 const WeightRows& wr) {
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1u);
      ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], kStageBytes);
      ptx::tma_load_2d(s.a[pos.stage], a_map, &s.full[pos.stage], kb * BK, static_cast<int>(m0));
      for (int h = 0; h < 2; ++h)
        ptx::tma_load_2d(s.b[pos.stage] + h * kHalfBytes, w_map, &s.full[pos.stage], kb * BK,
                         static_cast<int>(wr.first[h]));
      pos.advance<kStages>();
    }
  }

  struct Accumulators {
    float v[BM / 2];  // wgmma's m64nBM fragment: 64 W rows x BM tokens
  };

  // Consumer warpgroup cw: its W half times the tile's tokens over k-slices [kb_begin, kb_end)
  // (at least one), summed from zero. One wgmma batch in flight; a stage goes back once the batch
  // that read it retired. Where segments fold, the first slice is peeled off and its first wgmma
  // only writes the accumulators: ptxas then sees them dead between one sum and the next, so the
  // running sum and the epilogue do not hold a second fragment's registers.
  // `between()` runs after each slice's batch is issued, while the tensor cores work on it (the
  // kernel stages the previous tile's chunks there); it must not touch the accumulators.
  template <class Between>
  __device__ static void consume(SharedStorage& s, RingPosition& pos, int kb_begin, int kb_end, int cw,
                                 Accumulators& acc, Between&& between) {
    BatchReleaser release;
    auto slice = [&](int kb, auto first_slice) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      ptx::wgmma_fence();
      const std::uint64_t desc_w = ptx::smem_descriptor_sw128(s.b[pos.stage] + cw * kHalfBytes);
      const std::uint64_t desc_x = ptx::smem_descriptor_sw128(s.a[pos.stage]);
#pragma unroll
      for (int k16 = 0; k16 < BK / 16; ++k16) {
        if constexpr (!kFoldsSegments)
          ptx::wgmma_m64k16<T, BM>(acc.v, desc_w + 2 * k16, desc_x + 2 * k16, kb > kb_begin || k16 > 0);
        else if (decltype(first_slice)::value && k16 == 0)
          ptx::wgmma_m64n160k16_first<T>(acc.v, desc_w, desc_x);
        else
          ptx::wgmma_m64k16<T, BM>(acc.v, desc_w + 2 * k16, desc_x + 2 * k16, true);
      }
      ptx::wgmma_commit_group();
      release.committed(s.empty, pos.stage);
      pos.advance<kStages>();
      between();
    };
    int kb = kb_begin;
    if constexpr (kFoldsSegments) slice(kb++, std::true_type{});
    for (; kb < kb_end; ++kb) slice(kb, std::false_type{});
    release.drain(s.empty);
#pragma unroll
    for (int i = 0; i < BM / 2; ++i) ptx::fence_registers(acc.v[i]);
  }
  __device__ static void consume(SharedStorage& s, RingPosition& pos, int kb_begin, int kb_end, int cw,
                                 Accumulators& acc) {
    consume(s, pos, kb_begin, kb_end, cw, acc, [] {});
  }

  // Writes chunk C (tokens [C * kChunkRows, ...)) of consumer cw's fragment into the staging
  // tile, transposed (stage_fragment_chunk), its W half at columns [64 cw, 64 cw + 64).
  template <int C> __device__ __forceinline__ static void stage_chunk(SharedStorage& s, const Accumulators& acc, int cw) {
    stage_fragment_chunk<C, kChunkRows>(s.staging, kTileLd, acc.v, cw * kHalfRows);
  }

  // The fragment form of a GLU epilogue (epilogue.hpp's kPairsInFragment): consumer 0 holds an
  // N-tile's gate rows and consumer 1 its value rows, element for element in the same places of
  // their fragments. Consumer 0 pairs the fragment's first kPairedBlocks n8 blocks, consumer 1 the
  // rest, each getting the other half's values through the staging area in slots (float4 q of
  // thread t at q * 128 + t: a warp's access is 512 contiguous bytes); then both write their
  // outputs, rounded to 16 bits, into the staging area as [BM tokens][64 columns] with each
  // 128-byte row's 16-byte chunks swizzled (chunk c of token row r at c ^ (r % 8)), the layout the
  // copy engine's 128-byte swizzle reads, and one thread stores that box.
  static constexpr int kBlocks = BM / 8, kPairedBlocks = (kBlocks + 1) / 2;
  static_assert(kPairedBlocks * 128 * sizeof(float4) <= sizeof(float) * kChunkRows * kTileLd, "the exchange slots fit");
  static_assert(BM * kHalfRows * 2 <= sizeof(float) * kChunkRows * kTileLd, "the paired 16-bit tile fits");
  __device__ static float4* exchange_slot(SharedStorage& s, int q) {
    return reinterpret_cast<float4*>(s.staging) + q * 128 + threadIdx.x % 128;
  }
  __device__ static float4 block(const Accumulators& acc, int j) {
    return make_float4(acc.v[4 * j], acc.v[4 * j + 1], acc.v[4 * j + 2], acc.v[4 * j + 3]);
  }
  // This thread's W row (within its half) of fragment element e of any block: rows r and r + 8.
  __device__ static int fragment_row(int e) { return (threadIdx.x % 128) / 32 * 16 + (threadIdx.x % 32) / 4 + (e >> 1) * 8; }
  // Element e of block j rounded to OutT at its place in the swizzled output box.
  template <class OutT> __device__ static void put_paired(SharedStorage& s, int j, int e, float v) {
    const int token = 8 * j + 2 * (threadIdx.x % 4) + (e & 1), col = fragment_row(e);
    const int byte = token * 128 + (((col / 8) ^ (token % 8)) * 16) + (col % 8) * 2;
    *reinterpret_cast<OutT*>(reinterpret_cast<unsigned char*>(s.staging) + byte) = from_float<OutT>(v);
  }

  // Chunk `chunk` (run time, at least kFirst) staged by both consumers: one call site a chunk
  // index, so the fragment is only ever indexed by constants and stays in registers.
  template <int kFirst = 0> __device__ static void stage(SharedStorage& s, const Accumulators& acc, int cw, int chunk) {
    [&]<int... C>(std::integer_sequence<int, C...>) {
      ((chunk == kFirst + C ? stage_chunk<kFirst + C>(s, acc, cw) : void()), ...);
    }(std::make_integer_sequence<int, kChunks - kFirst>{});
  }
};

// Two N-tiles a CTA, 256 W rows by TileRows tokens, each consumer owning one N-tile whole (both
// its 64-row W halves: two m64nBM wgmmas a k16 step) and running that N-tile's epilogue alone on
// its own staging tile, in chunks of ChunkRows tokens. For few-row calls whose 128 x BM tiles
// would leave a short last round (qkv_proj at 70 tokens: 168 N-tiles on 132 SMs, a second round
// of 36): 84 CTAs of twice the work, every one streaming to the end. The staging tiles are small
// so that 5 stages of 41 KB fit beside them. The same per-element sums as every other tile.
template <class T, int TileRows, int Stages, int ChunkRows>
struct WideSwappedMainLoopSm90 {
  static constexpr int kConsumers = 2, kNSub = 2;  // N-tiles a CTA: consumer cw owns N-tile cw
  static constexpr int kSubN = 128, kHalfRows = kSubN / 2;
  static constexpr int BM = TileRows, BK = 64, kStages = Stages;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static_assert(sizeof(T) == 2, "wgmma here takes 16-bit operands");
  static_assert(BM % 8 == 0 && BM <= 256, "a wgmma's N and a copy box's height");
  static constexpr int kABytes = BM * BK * 2, kHalfBytes = kHalfRows * BK * 2, kBBytes = 2 * kNSub * kHalfBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kChunkRows = ChunkRows, kChunks = (BM + kChunkRows - 1) / kChunkRows;
  static constexpr int kTileLd = kSubN + 4;  // as SwappedMainLoopSm90's: a warp's stores in 32 banks
  static_assert(kChunkRows % 8 == 0);
  static_assert(kABytes % 1024 == 0, "stages stay 1024-byte aligned for the 128-byte swizzle");

  struct SharedStorage {
    alignas(1024) unsigned char a[kStages][kABytes];  // tokens x 64 k
    alignas(1024) unsigned char b[kStages][kBBytes];  // N-tile 0's two W halves, then N-tile 1's
    alignas(16) float staging[kConsumers][kChunkRows * kTileLd];  // a consumer's chunk of its N-tile
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + room to align the base

  __device__ static void init(SharedStorage& s) { init_ring(s.full, s.empty, kConsumers * 4); }

  // Producer (one thread): every k-slice of one CTA tile, tokens [m0, m0 + BM), both W halves of
  // both N-tiles (an absent second N-tile's rows lie beyond W: the copy engine fills zeros).
  __device__ static void produce(SharedStorage& s, RingPosition& pos, const CUtensorMap* a_map,
                                 const CUtensorMap* w_map, int k_blocks, std::int64_t m0,
                                 const WeightRows (&wr)[kNSub]) {
    for (int kb = 0; kb < k_blocks; ++kb) {
      ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1u);
      ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], kStageBytes);
      ptx::tma_load_2d(s.a[pos.stage], a_map, &s.full[pos.stage], kb * BK, static_cast<int>(m0));
#pragma unroll
      for (int sub = 0; sub < kNSub; ++sub)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          ptx::tma_load_2d(s.b[pos.stage] + (2 * sub + h) * kHalfBytes, w_map, &s.full[pos.stage], kb * BK,
                           static_cast<int>(wr[sub].first[h]));
      pos.advance<kStages>();
    }
  }

  struct Accumulators {
    float v[2][BM / 2];  // the owned N-tile's W halves, each an m64nBM fragment
  };

  // Consumer cw: its N-tile times the tile's tokens over every k-slice, summed from zero.
  __device__ static void consume(SharedStorage& s, RingPosition& pos, int k_blocks, int cw, Accumulators& acc) {
    BatchReleaser release;
    for (int kb = 0; kb < k_blocks; ++kb) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      ptx::wgmma_fence();
      const std::uint64_t desc_x = ptx::smem_descriptor_sw128(s.a[pos.stage]);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::uint64_t desc_w = ptx::smem_descriptor_sw128(s.b[pos.stage] + (2 * cw + h) * kHalfBytes);
#pragma unroll
        for (int k16 = 0; k16 < BK / 16; ++k16)
          ptx::wgmma_m64k16<T, BM>(acc.v[h], desc_w + 2 * k16, desc_x + 2 * k16, kb > 0 || k16 > 0);
      }
      ptx::wgmma_commit_group();
      release.committed(s.empty, pos.stage);
      pos.advance<kStages>();
    }
    release.drain(s.empty);
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < BM / 2; ++i) ptx::fence_registers(acc.v[h][i]);
  }

  // Chunk C of consumer cw's N-tile into its own staging tile: W half h at columns [64 h, 64 h + 64).
  template <int C> __device__ __forceinline__ static void stage_chunk(SharedStorage& s, const Accumulators& acc, int cw) {
#pragma unroll
    for (int h = 0; h < 2; ++h) stage_fragment_chunk<C, kChunkRows>(s.staging[cw], kTileLd, acc.v[h], h * kHalfRows);
  }
  // Chunk `chunk` (run time): one call site a chunk index, so the fragment stays in registers.
  __device__ static void stage(SharedStorage& s, const Accumulators& acc, int cw, int chunk) {
    [&]<int... C>(std::integer_sequence<int, C...>) {
      ((chunk == C ? stage_chunk<C>(s, acc, cw) : void()), ...);
    }(std::make_integer_sequence<int, kChunks>{});
  }
};

}  // namespace fusekit::gemm
