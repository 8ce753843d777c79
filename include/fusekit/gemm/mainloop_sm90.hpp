// fusekit/gemm/mainloop_sm90.hpp: the Hopper main loop. One producer thread streams k-slices of
// A and of the tile's W rows into a ring of shared-memory stages with bulk tensor copies (TMA);
// two consumer warpgroups multiply them with wgmma, 64 rows each, fp32 accumulators in
// registers. A CTA tile is 128 rows x NSub epilogue N-tiles of 128 columns: NSub = 2 makes
// one m64n256 wgmma per k16 step, the shape that keeps the tensor cores fed from shared memory.
// Full/empty mbarriers hand each stage back and forth, so loads run kStages - 1 slices ahead of
// the math and, in a persistent kernel, across tile boundaries.
//
// Every output element sums its k-products in ascending k, in k16 steps, within each K segment
// (split_k.hpp), whatever M: a row's result does not depend on the other rows of the call.
#pragma once

#include "fusekit/core/launch.cuh"
#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/operands.hpp"
#include "fusekit/gemm/ptx_sm90.hpp"
#include "fusekit/gemm/split_k.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

// The kernel's dynamic shared memory as `Storage`, aligned to 1024 bytes (the 128-byte swizzle's
// atoms). By pointer arithmetic on the shared array, not through an integer, so the compiler
// still knows the storage is shared memory: the epilogue's tile accesses are then LDS/STS with
// 32-bit addresses, not generic loads with 64-bit address math.
template <class Storage> __device__ __forceinline__ Storage& aligned_shared_storage() {
  extern __shared__ unsigned char smem_raw[];
  const unsigned misalign = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw)) % 1024u;
  return *reinterpret_cast<Storage*>(smem_raw + (1024u - misalign) % 1024u);
}

// Position in the ring: which stage, and the parity of the stage's current phase.
struct RingPosition {
  int stage = 0;
  std::uint32_t phase = 0;
  template <int Stages> __device__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

// The ring's barriers: full[i] completes when stage i's copies have landed (the producer's one
// arrival and their bytes), empty[i] when every consumer warp has released it.
template <int Stages>
__device__ void init_ring(std::uint64_t (&full)[Stages], std::uint64_t (&empty)[Stages], int consumer_warps) {
  for (int i = 0; i < Stages; ++i) {
    ptx::mbarrier_init(&full[i], 1);
    ptx::mbarrier_init(&empty[i], consumer_warps);
  }
  ptx::fence_barrier_init();
}

// A consumer's side of the ring with one wgmma batch in flight: once the batch reading a stage is
// committed, wait for the batch before it and hand that one's stage back (one arrival a warp).
struct BatchReleaser {
  int previous = -1;
  __device__ void committed(std::uint64_t* empty, int stage) {
    ptx::wgmma_wait_group<1>();
    if (previous >= 0 && threadIdx.x % 32 == 0) ptx::mbarrier_arrive(&empty[previous]);
    previous = stage;
  }
  __device__ void drain(std::uint64_t* empty) const {
    ptx::wgmma_wait_group<0>();
    if (previous >= 0 && threadIdx.x % 32 == 0) ptx::mbarrier_arrive(&empty[previous]);
  }
};

// StagingInRing: the consumers stage into the ring's memory instead of a buffer of their own,
// which leaves room for a deeper ring (more bytes in flight per SM, what few-row calls streaming
// a weight from HBM need). Only for CTAs that run one k-range in all (the kernel's last item):
// the ring must be drained before its memory is reused.
// ARows (0: BM): the rows of A a stage holds. Fewer (72 for calls of at most 72 rows) shrink the
// stage, so more fit; the second consumer's wgmma then reads rows past the box from whatever
// shared memory follows (inside this CTA's allocation), and those accumulator rows, beyond M,
// are never stored.
// Segmented: the kernel runs K segments (split_k.hpp), folded in the staging tile (NSub = 1) or
// in the registers (NSub = 2, fragment_fold.hpp).
template <class T, int NSub, int Stages, bool StagingInRing = false, int ARows = 0, bool Segmented = (NSub == 1)>
struct MainLoopSm90 {
  static constexpr int kConsumers = 2;  // consumer warpgroups; warpgroup 0 is the producer
  static constexpr int kWgRows = 64;    // rows per consumer
  static constexpr int kNSub = NSub, kSubN = 128;  // epilogue N-tiles per CTA tile, their width
  static constexpr int BM = kConsumers * kWgRows, BN = NSub * kSubN, BK = 64, kStages = Stages;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr bool kStagingInRing = StagingInRing, kSegmented = Segmented;
  static_assert(!(StagingInRing && Segmented && NSub == 2), "a 128 x 256 tile's running sum is not in the ring");
  static_assert(sizeof(T) == 2, "wgmma here takes 16-bit operands");

  static constexpr int kARows = ARows > 0 ? ARows : BM;  // also the A tensor map's box height
  static_assert(kARows % 8 == 0 && kARows <= BM && kARows * BK * 2 % 1024 == 0, "A stages stay 1024-byte aligned");
  static constexpr int kABytes = kARows * BK * 2, kBBytes = BN * BK * 2, kHalfBytes = kSubN / 2 * BK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // fp32 staging of one 64 x 128 epilogue tile per consumer; +8 floats per row keeps the
  // half-warp's 8-byte fragment stores in distinct banks.
  static constexpr int kTileLd = kSubN + 8;

  struct Staging {
    alignas(16) float tiles[kConsumers][64 * kTileLd];
  };
  struct NoStaging {};
  struct SharedStorage {
    // Stage buffers first: TMA's 128-byte swizzle needs 1024-byte aligned boxes.
    alignas(1024) unsigned char a[kStages][kABytes];
    alignas(1024) unsigned char b[kStages][kBBytes];
    std::conditional_t<StagingInRing, NoStaging, Staging> own;
    std::uint64_t full[kStages];   // the producer's copies have landed
    std::uint64_t empty[kStages];  // every consumer warp is done reading
    unsigned arrived[kConsumers];  // split tiles: a consumer's arrival count, shared with its group
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + room to align the base
  static_assert(offsetof(SharedStorage, b) == sizeof(SharedStorage::a), "the ring is one block: A stages, then W");
  static_assert(!StagingInRing || NSub * kConsumers * 64 * kTileLd * sizeof(float) <=
                                       sizeof(SharedStorage::a) + sizeof(SharedStorage::b),
                "the staging tiles fit in the ring");

  // Consumer cw's staging tile; in the ring there is room for one per N-tile (`slot`), so a
  // few-row CTA stages all of its accumulators before its epilogue (consumer tiles adjacent).
  __device__ static float* staging(SharedStorage& s, int cw, int slot = 0) {
    if constexpr (StagingInRing)
      return reinterpret_cast<float*>(&s.a[0][0]) + (slot * kConsumers + cw) * 64 * kTileLd;
    else
      return s.own.tiles[cw];
  }

  __device__ static void init(SharedStorage& s) { init_ring(s.full, s.empty, kConsumers * 4); }

  // Producer (one thread): k-slices [kb_begin, kb_end) of one tile: A rows [m0, m0 + BM) and both
  // W-row halves of each N-tile (64 rows each, in tile-column order).
  __device__ static void produce(SharedStorage& s, RingPosition& pos, const CUtensorMap* a_map,
                                 const CUtensorMap* w_map, int kb_begin, int kb_end, std::int64_t m0,
                                 const WeightRows (&wr)[NSub]) {
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1u);
      ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], kStageBytes);
      load_a(s, pos.stage, a_map, kb, m0);
      load_weights(s, pos.stage, w_map, kb, wr);
      pos.advance<kStages>();
    }
  }

  // The same for a CTA's first tile while the previous grid on the stream may still run
  // (programmatic dependent launch, kernel_sm90.hpp): W's boxes for the first min(kStages,
  // slices) slices go out at once, A's only once that grid has completed (A may be its output;
  // W is not, the caller's promise), and only then may the next grid be scheduled. Each stage's
  // barrier expects both from the start. Called on a fresh ring (the CTA's first unit).
  __device__ static void produce_weights_first(SharedStorage& s, RingPosition& pos, const CUtensorMap* a_map,
                                               const CUtensorMap* w_map, int kb_begin, int kb_end, std::int64_t m0,
                                               const WeightRows (&wr)[NSub]) {
    const int ahead = kb_end - kb_begin < kStages ? kb_end - kb_begin : kStages;
    for (int j = 0; j < ahead; ++j) {
      ptx::mbarrier_arrive_expect_tx(&s.full[j], kStageBytes);
      load_weights(s, j, w_map, kb_begin + j, wr);
    }
    wait_for_prior_grid();
    allow_next_grid();
    for (int j = 0; j < ahead; ++j) {
      load_a(s, j, a_map, kb_begin + j, m0);
      pos.advance<kStages>();
    }
    produce(s, pos, a_map, w_map, kb_begin + ahead, kb_end, m0, wr);
  }

  // A call whose CTAs each run one k-range of one tile (the ring's own staging) reads every W line
  // once and every A line from each CTA: W's lines leave L2 first and A's stay (measured on the
  // H200 without math: 5% less time for a 70-token out_proj stream; RESULTS.md, twenty-fourth session).
  static constexpr bool kStreamsWeightOnce = StagingInRing;

  // k-slice kb of A rows [m0, m0 + kARows).
  __device__ static void load_a(SharedStorage& s, int stage, const CUtensorMap* a_map, int kb, std::int64_t m0) {
    if constexpr (kStreamsWeightOnce)
      ptx::tma_load_2d(s.a[stage], a_map, &s.full[stage], kb * BK, static_cast<int>(m0), ptx::l2_evict_last());
    else
      ptx::tma_load_2d(s.a[stage], a_map, &s.full[stage], kb * BK, static_cast<int>(m0));
  }

  // k-slice kb of both W-row halves of each N-tile (64 rows each, in tile-column order).
  __device__ static void load_weights(SharedStorage& s, int stage, const CUtensorMap* w_map, int kb,
                                      const WeightRows (&wr)[NSub]) {
#pragma unroll
    for (int h = 0; h < 2 * NSub; ++h) {
      void* dst = s.b[stage] + h * kHalfBytes;
      const int row = static_cast<int>(wr[h / 2].first[h % 2]);
      if constexpr (kStreamsWeightOnce)
        ptx::tma_load_2d(dst, w_map, &s.full[stage], kb * BK, row, ptx::l2_evict_first());
      else
        ptx::tma_load_2d(dst, w_map, &s.full[stage], kb * BK, row);
    }
  }

  struct Accumulators {
    float v[BN / 2];  // wgmma's m64nBN fragment
  };
  static constexpr std::int64_t kFragmentFloats = std::int64_t(BN / 2) * 128;  // a consumer's fragment
  static constexpr std::int64_t kSubFragmentFloats = kFragmentFloats / NSub;   // its part of one N-tile

  // Consumer warpgroup `cw`: its 64 rows of the tile over k-slices [kb_begin, kb_end), summed from
  // zero. One wgmma batch stays in flight; a stage goes back to the producer once the batch that
  // read it retired.
  // kN = kSubN on 128 x 256 tiles (a light tile, whose rows all fit the first consumer): both
  // consumers multiply the tile's first 64 rows, consumer cw by N-tile cw's W rows (m64n128), into
  // acc.v[0, 64). wgmma's per-element sums do not depend on N: the same bits. (It was meant to
  // halve a light tile's time; measured, it takes 0.85-0.95 of a whole tile either way, held by
  // its W stream: RESULTS.md, thirteenth session.)
  template <int kN = BN>
  __device__ static void consume(SharedStorage& s, RingPosition& pos, int kb_begin, int kb_end, int cw,
                                 Accumulators& acc) {
    static_assert(kN == BN || (kN == kSubN && NSub == 2));
    constexpr bool kSplitN = kN != BN;
    float(&d)[kN / 2] = *reinterpret_cast<float(*)[kN / 2]>(acc.v);
    const int a_offset = kSplitN ? 0 : cw * kWgRows * BK * 2, b_offset = kSplitN ? cw * 2 * kHalfBytes : 0;
    BatchReleaser release;
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      ptx::wgmma_fence();
      const std::uint64_t desc_b = ptx::smem_descriptor_sw128(s.b[pos.stage] + b_offset);
      const std::uint64_t desc_a = ptx::smem_descriptor_sw128(s.a[pos.stage] + a_offset);
#pragma unroll
      for (int k16 = 0; k16 < BK / 16; ++k16)  // +32 bytes per k16 step inside the swizzled 128-byte rows
        ptx::wgmma_m64k16<T, kN>(d, desc_a + 2 * k16, desc_b + 2 * k16, kb > kb_begin || k16 > 0);
      ptx::wgmma_commit_group();
      release.committed(s.empty, pos.stage);
      pos.advance<kStages>();
    }
    release.drain(s.empty);
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) ptx::fence_registers(acc.v[i]);
  }

  // A consumer with no rows in the tile: takes k-slices [kb_begin, kb_end) off the ring without
  // reading them (the stage goes back once it has landed, so the ring stays in step).
  __device__ static void pass(SharedStorage& s, RingPosition& pos, int kb_begin, int kb_end) {
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
      if (threadIdx.x % 32 == 0) ptx::mbarrier_arrive(&s.empty[pos.stage]);
      pos.advance<kStages>();
    }
  }

  // Writes N-tile `sub` of a consumer's fragment into `tile`: wgmma's n8 block j holds rows r and
  // r + 8, columns c and c + 1, in the fragment's float4 q = sub * 16 + j (acc.v[4q .. 4q + 3]);
  // `put(q, top, bottom)` writes that pair of float2s.
  template <class Put> __device__ __forceinline__ static void write_fragment(float* tile, int sub, Put&& put) {
    const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    const int r = warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const int c = j * 8 + (lane % 4) * 2;
      put(sub * 16 + j, reinterpret_cast<float2*>(&tile[r * kTileLd + c]),
          reinterpret_cast<float2*>(&tile[(r + 8) * kTileLd + c]));
    }
  }

  // The staged N-tile as the epilogue sees it: 64 rows from global row `row0`, synced on the
  // consumer's named barrier unless kSync = false (a wider barrier follows).
  template <bool kSync = true>
  __device__ static AccTile describe(float* tile, int cw, std::int64_t m, std::int64_t row0, const WeightRows& wr) {
    const AccTile out = AccTile::staged(tile, kTileLd, row0, m - row0, 64, kSubN / 2, wr, threadIdx.x % 128, 128, 1 + cw);
    if constexpr (kSync) out.sync();
    return out;
  }

  // Writes N-tile `sub` of consumer cw's fragment into its staging tile, or adds it to what an
  // earlier K segment left there (Fold::add: each thread reads back only what it wrote; the same
  // additions as SplitExchange makes across CTAs), and describes the tile for the epilogue.
  template <Fold kFold = Fold::store, bool kSync = true>
  __device__ static AccTile stage(SharedStorage& s, const Accumulators& acc, int cw, int sub, std::int64_t m,
                                  std::int64_t row0, const WeightRows& wr, int slot = 0) {
    float* tile = staging(s, cw, slot);
    write_fragment(tile, sub, [&](int q, float2* top, float2* bottom) {
      const float* f = &acc.v[4 * q];
      if constexpr (kFold == Fold::add) {
        const float2 t0 = *top, t1 = *bottom;
        *top = make_float2(t0.x + f[0], t0.y + f[1]);
        *bottom = make_float2(t1.x + f[2], t1.y + f[3]);
      } else {
        *top = make_float2(f[0], f[1]);
        *bottom = make_float2(f[2], f[3]);
      }
    });
    return describe<kSync>(tile, cw, m, row0, wr);
  }

  // Stages N-tile `sub` from folded sums (fragment_fold.hpp): `value(q)` gives fragment float4 q,
  // what acc.v[4q .. 4q + 3] would hold after the fold. The fold never writes the accumulators:
  // a wgmma accumulator that other instructions define makes ptxas serialize the wgmma pipeline.
  // kChunk: value()'s loads go out kChunk float4s at a time, as many as the registers hold.
  template <int kChunk, class Value>
  __device__ __forceinline__ static AccTile stage_values(SharedStorage& s, int cw, int sub, std::int64_t m,
                                                         std::int64_t row0, const WeightRows& wr, Value&& value) {
    float* tile = staging(s, cw);
    write_fragment(tile, sub, [&](int q, float2* top, float2* bottom) {
      const float4 v = value(q);
      *top = make_float2(v.x, v.y);
      *bottom = make_float2(v.z, v.w);
      if (q % kChunk == kChunk - 1) asm volatile("" ::: "memory");
    });
    return describe(tile, cw, m, row0, wr);
  }
};

}  // namespace fusekit::gemm
