// fusekit/gemm/kernel_sm90_swapped.hpp: the Hopper GEMM kernel on SwappedMainLoopSm90 (tokens as
// the wgmma's N), warp-specialized and persistent like gemm_kernel_sm90: warpgroup 0's producer
// streams tiles through the ring while warpgroups 1 and 2 multiply, one W half each. The epilogue
// runs on the tile's token chunks, staged transposed: on 72- and 232-token tiles the consumers run it
// (the producer is already loading the next tile's slices meanwhile), or where the epilogue has
// the fragment form (fc1's SwiGLU) pair the tile in registers and hand it to the copy engine;
// 160-token tiles hand it to the producer warpgroup's other three warps, so that it runs beside
// the next tile's wgmmas (a tile's epilogue was 7-21% of its time: RESULTS.md, twenty-fifth
// session). No light tiles and
// no split tiles: every tile runs whole, its K segments (long, narrow weights) folded in the
// consumers' registers. The launcher takes this kernel where the token count fits its tile
// height better (kernel.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/kernel_sm90.hpp"
#include "fusekit/gemm/mainloop_sm90_swapped.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

// Registers a thread where 160-token tiles hand their epilogue to the producer warpgroup's other
// warps: those need more than the producer's 40 (the qkv and residual epilogues run there), and
// the consumers hold two fragments (the accumulators and the running sum) of 80 each. The
// consumers can only take what the producer warpgroup gives back from the launch's 168 a thread
// (setmaxnreg.inc otherwise waits for it forever): 2 x (208 - 168) <= 168 - 88. Measured (H200,
// 925 tokens, RESULTS.md, twenty-fifth session), 88 / 208 beat 96 / 200 (the consumers spilled in
// their main loop) and 72 / 216 (the epilogue warps spilled 400 bytes): the consumers' registers
// matter more, the epilogue warps have a tile's time to finish.
inline constexpr int kLaunchRegs = 168, kEpilogueWarpRegs = 88, kConsumerRegs = 208;
static_assert(2 * (kConsumerRegs - kLaunchRegs) <= kLaunchRegs - kEpilogueWarpRegs,
              "the consumers' registers come from the producer warpgroup's");

// Whether the kernel runs Epi in its fragment form (epilogue.hpp): on tiles whose consumers hold
// one whole fragment each (the 72- and 232-token ones; the 160-token ones fold K segments in a second).
template <class MainLoop, class Epi>
inline constexpr bool kPairsInFragmentOn = Epi::kPairsInFragment && !MainLoop::kFoldsSegments;

// CTA b takes items b, b + grid, ... of `plan` (split_k.hpp): whole tiles of `order`
// (tile_scheduler.hpp: bands of N-tiles, every token tile of a band before the next), or, on a
// cooperative launch (plan.shared_fold), one K segment of a split tile a CTA; the producer walks
// the same items.
template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90_swapped(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                             const __grid_constant__ CUtensorMap out_map, GemmExtent extent, TileOrder order,
                             SplitPlan plan, typename Epi::Params params, GridOverlap overlap) {
#ifdef FUSEKIT_SM90A
  auto& s = aligned_shared_storage<typename MainLoop::SharedStorage>();
  constexpr int kEpilogueWarpThreads = 96;  // the producer warpgroup's warps 1-3 (see below)
  if (threadIdx.x == 0) MainLoop::init(s, kEpilogueWarpThreads);
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  const int cw = warpgroup - 1;  // the consumer warpgroup's index (consumers only)
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  const std::int64_t tiles = order.count(), items = plan.items(tiles);
  // The k-slices of an item: all of a whole tile's, or its segment's.
  auto slices = [&](const WorkItem& it, int& begin, int& end) {
    begin = 0, end = k_blocks;
    if (it.segment >= 0) plan.segments.range(it.segment, k_blocks, begin, end);
  };
  // Whether the CTA takes another tile after tile t (whole tiles: CTA b takes b, b + grid, ...).
  auto has_next = [&](std::int64_t t) { return t + gridDim.x < tiles; };
  // The W rows of N-tile n_tile (the epilogue chooses them).
  auto weight_rows_of = [&](std::int64_t n_tile) {
    return Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile);
  };
  // The rows of M-tile m_tile in the matrix.
  auto rows_of = [&](std::int64_t m_tile) {
    const std::int64_t rows = extent.m - m_tile * MainLoop::BM;
    return static_cast<int>(rows < MainLoop::BM ? rows : MainLoop::BM);
  };
  // Chunks of tile (m_tile): those with rows in the matrix.
  auto chunks_of = [&](std::int64_t m_tile) {
    const int n = (rows_of(m_tile) + MainLoop::kChunkRows - 1) / MainLoop::kChunkRows;
    return n < MainLoop::kChunks ? n : MainLoop::kChunks;
  };
  // The epilogue's view of chunk `chunk` of tile (m_tile, wr), run by `threads` threads.
  auto chunk_tile = [&](std::int64_t m_tile, int chunk, const WeightRows& wr, int thread, int threads, int barrier) {
    const std::int64_t row0 = m_tile * MainLoop::BM + chunk * MainLoop::kChunkRows;
    const int chunk_rows = MainLoop::BM - chunk * MainLoop::kChunkRows < MainLoop::kChunkRows
                               ? MainLoop::BM - chunk * MainLoop::kChunkRows
                               : MainLoop::kChunkRows;  // the tile's last chunk may be shorter
    return AccTile::staged(s.staging, MainLoop::kTileLd, row0, extent.m - row0, chunk_rows, MainLoop::kHalfRows, wr,
                           thread, threads, barrier);
  };
  // The consumers' own epilogue of tile (m_tile, n_tile): each consumer stages its half of each
  // chunk from `frag` in turn, and both run the epilogue on it behind their barrier 3.
  auto stage_and_finish = [&](const typename MainLoop::Accumulators& frag, std::int64_t m_tile, std::int64_t n_tile) {
    const WeightRows wr = weight_rows_of(n_tile);
    const int chunks = chunks_of(m_tile);
#pragma unroll 1
    for (int chunk = 0; chunk < chunks; ++chunk) {  // one call site of the epilogue
      MainLoop::stage(s, frag, cw, chunk);
      AccTile tile = chunk_tile(m_tile, chunk, wr, threadIdx.x - 128, MainLoop::kConsumers * 128, 3);
      tile.sync();               // both W halves staged
      Epi::apply(params, tile);  // ends with the group's barrier: the staging tile is free again
    }
  };
  // The fragment form of a GLU epilogue on the 72- and 232-token tiles (SwappedMainLoopSm90 says how):
  // the consumers pair the tile's gate and value halves in registers and hand the rounded tile to
  // the copy engine, which writes it while they go on with the next tile; only consumer 0's
  // thread 0 issues stores. The staged form's nodes (its fp32 chunks, the 16-byte stores) kept
  // the tensor cores waiting for about 7% of fc1's time at 925 tokens (RESULTS.md, twenty-ninth
  // session).
  constexpr bool kPairs = kPairsInFragmentOn<MainLoop, Epi>;
  const bool stores_tiles = threadIdx.x == 128;
  auto pair_and_store = [&](typename MainLoop::Accumulators& acc, std::int64_t m_tile, std::int64_t n_tile) {
    if constexpr (kPairs) {
      using Out = typename Epi::Store::Out;
      constexpr int kBlocks = MainLoop::kBlocks, kFirst = MainLoop::kPairedBlocks;
      const WeightRows wr = weight_rows_of(n_tile);
      // This consumer's half, selected rather than indexed (an index puts wr on the stack).
      const int count = cw == 0 ? wr.count[0] : wr.count[1];
      const std::int64_t first_row = cw == 0 ? wr.first[0] : wr.first[1];
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // the nodes before the pairing, on this thread's two W rows
        const int row = MainLoop::fragment_row(e);
        if (row < count) {
#pragma unroll
          for (int j = 0; j < kBlocks; ++j) acc.v[4 * j + e] = Epi::visit(params, acc.v[4 * j + e], first_row + row);
        }
      }
      auto sync = [] { asm volatile("bar.sync 3, 256;\n" ::: "memory"); };
      if (stores_tiles) ptx::bulk_wait_group_read_all();  // the previous tile's box is read out
      sync();
      auto pair_blocks = [&](int owner, int first, int last) {  // `owner` pairs blocks [first, last)
        if (cw != owner) {
#pragma unroll
          for (int j = 0; j < kBlocks; ++j)
            if (j >= first && j < last) *MainLoop::exchange_slot(s, j - first) = MainLoop::block(acc, j);
        }
        sync();
        if (cw == owner) {
#pragma unroll
          for (int j = 0; j < kBlocks; ++j) {
            if (j < first || j >= last) continue;
            const float4 other = *MainLoop::exchange_slot(s, j - first);
            const float o[4] = {other.x, other.y, other.z, other.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              float& v = acc.v[4 * j + e];
              v = owner == 0 ? Epi::pair(params, v, o[e]) : Epi::pair(params, o[e], v);  // (gate, value)
            }
          }
        }
        sync();  // the slots are free again
      };
      pair_blocks(0, 0, kFirst);
      pair_blocks(1, kFirst, kBlocks);
#pragma unroll
      for (int j = 0; j < kBlocks; ++j) {
        if ((cw == 0) != (j < kFirst)) continue;
#pragma unroll
        for (int e = 0; e < 4; ++e) MainLoop::template put_paired<Out>(s, j, e, acc.v[4 * j + e]);
      }
      ptx::fence_proxy_async_shared();  // the box's writes, before the copy engine reads them
      sync();
      if (stores_tiles) {
        ptx::tma_store_2d(&out_map, s.staging, static_cast<int>(Epi::paired_col0(params, wr)),
                          static_cast<int>(m_tile * MainLoop::BM));
        ptx::bulk_commit_group();
      }
    }
  };
  RingPosition pos;
  // One K segment of a split tile a CTA, the grid resident at once (a cooperative launch; tiles
  // whose chunk is the whole tile): the consumers stage their segment's sum, the tile's CTAs meet
  // in the workspace, and each folds and finishes its share of the tile's tokens on both
  // consumers' 8 warps (split_k.hpp's SharedFold: the same additions in the same order as every
  // other way, so the same bits). Few-row calls of long, narrow weights, forced
  // (SegmentTiles::few_swapped: out_proj and fc2 at 70 tokens measured no faster than the
  // 128 x 128 few-row kernel, whose second consumer multiplies 6 tokens; kernel.hpp).
  auto fold_shared_and_finish = [&] {
    if constexpr (MainLoop::kChunks == 1) {
      const WorkItem it = plan.item(blockIdx.x);
      std::int64_t m_tile, n_tile;
      order.coords(it.tile, m_tile, n_tile);
      int begin, end;
      slices(it, begin, end);
      typename MainLoop::Accumulators acc;
      MainLoop::consume(s, pos, begin, end, cw, acc);
      MainLoop::stage(s, acc, cw, 0);
      const std::int64_t m0 = m_tile * MainLoop::BM;
      const int rows = static_cast<int>(extent.m - m0 < MainLoop::BM ? extent.m - m0 : MainLoop::BM);
      SharedFold::exchange(plan, it, s.staging, MainLoop::kTileLd, rows, threadIdx.x - 128, 256,
                           [] { asm volatile("bar.sync 3, 256;\n" ::: "memory"); });
      int first, last;
      SharedFold::share(it.segment, plan.segments.count, rows, first, last);
      if (last == first) return;  // fewer tokens than segments
      AccTile tile = AccTile::staged(s.staging + first * MainLoop::kTileLd, MainLoop::kTileLd, m0 + first, last - first,
                                     last - first, MainLoop::kHalfRows, weight_rows_of(n_tile), threadIdx.x - 128, 256, 3);
      Epi::apply(params, tile);
    }
  };
  // 160-token tiles hand their epilogue to the producer warpgroup's three other warps: the
  // consumers stage a tile's first chunk and go on with the next tile, staging its other chunks
  // from the running sum between their first k-slices, while those warps run the epilogue beside
  // the tensor cores. A CTA's last tile has nothing to hide behind; the consumers stage it whole
  // in the drained ring and run its epilogue in one pass, while the idle epilogue warps warm L2
  // with its residual beforehand (together 1-6% faster on out_proj and fc2 at 925 tokens, most
  // in sustained runs: RESULTS.md, fifty-third session). (All 11 warps behind one named barrier
  // were 0.3-0.6% faster, but met there from two places in the code, which bar.sync, the aligned
  // form, leaves undefined: synccheck reported it and racecheck a staging race across it.
  // RESULTS.md, twenty-sixth session.)
  constexpr bool kHandOff = MainLoop::kFoldsSegments;
  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<kHandOff ? kEpilogueWarpRegs : 40>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensor_map(&a_map);
      ptx::prefetch_tensor_map(&w_map);
      if constexpr (kPairs) ptx::prefetch_tensor_map(&out_map);
      if (overlap != GridOverlap::none) {  // kernel_sm90.hpp's grid_overlap(): the prologue mode
        wait_for_prior_grid();
        allow_next_grid();
      }
      for (std::int64_t i = blockIdx.x; i < items; i += gridDim.x) {
        const WorkItem it = plan.item(i);
        std::int64_t m_tile, n_tile;
        order.coords(it.tile, m_tile, n_tile);
        int begin, end;
        slices(it, begin, end);
        MainLoop::produce(s, pos, &a_map, &w_map, begin, end, m_tile * MainLoop::BM, weight_rows_of(n_tile));
      }
    } else if (kHandOff && threadIdx.x >= 32) {
      const int thread = threadIdx.x - 32;
      std::uint32_t handoffs = 0;  // chunks taken from the consumers so far
      std::int64_t t = blockIdx.x;
      for (; has_next(t); t += gridDim.x) {  // all but the CTA's last tile
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        const WeightRows wr = weight_rows_of(n_tile);
        const int chunks = chunks_of(m_tile);
#pragma unroll 1
        for (int chunk = 0; chunk < chunks; ++chunk) {  // one call site of the epilogue
          ptx::mbarrier_wait(&s.staged_full, handoffs & 1u);
          AccTile tile = chunk_tile(m_tile, chunk, wr, thread, kEpilogueWarpThreads, 4);
          Epi::apply(params, tile);
          ptx::mbarrier_arrive(&s.staged_empty);  // every reader's own release of the chunk
          ++handoffs;
        }
      }
      // The last tile's epilogue runs exposed: warm L2 with what it reads (the residual) meanwhile.
      if (t < tiles) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        Epi::prefetch(params, m_tile * MainLoop::BM, rows_of(m_tile), weight_rows_of(n_tile), thread, kEpilogueWarpThreads);
      }
    }
  } else {
    ptx::setmaxnreg_inc<kHandOff ? kConsumerRegs : 232>();
    if (overlap != GridOverlap::none) {  // before the workspace, the epilogue's inputs and the outputs
      wait_for_prior_grid();
      allow_next_grid();
    }
    if constexpr (kHandOff) {
      typename MainLoop::Accumulators acc, running;  // running: the fold of the segments so far
      std::uint32_t handoffs = 0;       // chunks handed to the epilogue warps so far
      int pending = 0, staged_end = 0;  // the previous tile's chunks [pending, staged_end) are still to stage
      // The parity that staged_empty completes once the epilogue warps released every chunk handed to them.
      auto all_released = [&] { return (handoffs & 1u) ^ 1u; };
      // Hands chunk `pending` of the running sum to the epilogue warps once they have freed the
      // staging tile (waiting for that if `wait`); each consumer thread arrives for its own part.
      auto hand_off = [&](bool wait, auto first_chunk) {
        if (pending >= staged_end) return;
        if (wait)
          ptx::mbarrier_wait(&s.staged_empty, all_released());
        else if (!ptx::mbarrier_test_wait(&s.staged_empty, all_released()))
          return;
        MainLoop::template stage<decltype(first_chunk)::value>(s, running, cw, pending);
        ptx::mbarrier_arrive(&s.staged_full);
        ++handoffs;
        ++pending;
      };
      using Later = std::integral_constant<int, 1>;  // chunks after a tile's first
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        for (int seg = 0; seg < plan.segments.count; ++seg) {
          int begin, end;
          plan.segments.range(seg, k_blocks, begin, end);
          if (seg == 0) {
            MainLoop::consume(s, pos, begin, end, cw, acc, [&] { hand_off(false, Later{}); });
            while (pending < staged_end) hand_off(true, Later{});  // the fold below overwrites the running sum
          } else {
            MainLoop::consume(s, pos, begin, end, cw, acc);
          }
          fold_segment(running.v, acc.v, seg == 0);
        }
        if (has_next(t)) {
          pending = 0, staged_end = chunks_of(m_tile);
          hand_off(true, std::integral_constant<int, 0>{});  // the first chunk now, the others between the next tile's k-slices
          continue;
        }
        // The CTA's last tile: once the epilogue warps are done with the chunks handed to them,
        // the consumers stage the whole tile in the ring, free now (every k-slice landed and was
        // read: each consumer's wgmmas retired in consume, and the barrier below waits for both),
        // and run its epilogue in one pass: one barrier and one round of the nodes' loads for
        // the tile instead of one a chunk.
        ptx::mbarrier_wait(&s.staged_empty, all_released());  // at once where nothing was handed over
        asm volatile("bar.sync 3, 256;\n" ::: "memory");      // both consumers' last wgmmas retired
        float* whole = MainLoop::whole_tile_staging(s);
        stage_fragment_chunk<0, MainLoop::BM>(whole, MainLoop::kTileLd, running.v, cw * MainLoop::kHalfRows);
        AccTile tile = AccTile::staged(whole, MainLoop::kTileLd, m_tile * MainLoop::BM, extent.m - m_tile * MainLoop::BM,
                                       MainLoop::BM, MainLoop::kHalfRows, weight_rows_of(n_tile), threadIdx.x - 128,
                                       MainLoop::kConsumers * 128, 3);
        tile.sync();               // both W halves staged
        Epi::apply(params, tile);  // ends with the consumers' barrier
        // The tile's W rows again, not a copy kept from above: held across the epilogue it spills.
        Epi::release(params, m_tile * MainLoop::BM, rows_of(m_tile), weight_rows_of(n_tile), threadIdx.x - 128,
                     MainLoop::kConsumers * 128);
      }
    } else if (plan.shared_fold) {
      fold_shared_and_finish();
    } else {
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        typename MainLoop::Accumulators acc;
        MainLoop::consume(s, pos, 0, k_blocks, cw, acc);  // the launcher gives these tiles one segment
        if constexpr (kPairs)
          pair_and_store(acc, m_tile, n_tile);
        else
          stage_and_finish(acc, m_tile, n_tile);
      }
      if (kPairs && stores_tiles) ptx::bulk_wait_group_all();  // the last box written before the CTA ends
    }
  }
#else
  ptx::built_without_sm90a();
#endif
}

// The kernel on WideSwappedMainLoopSm90: CTA b takes CTA tiles b, b + grid, ... (two N-tiles
// each, `order` counting pairs); the producer streams both N-tiles, each consumer multiplies its
// own and runs that N-tile's epilogue on its own staging tile behind its own barrier (1 + cw).
// Every tile whole, K in one segment.
template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90_wide_swapped(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                                  GemmExtent extent, std::int64_t n_tiles, TileOrder order, typename Epi::Params params) {
#ifdef FUSEKIT_SM90A
  auto& s = aligned_shared_storage<typename MainLoop::SharedStorage>();
  if (threadIdx.x == 0) MainLoop::init(s);
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  const std::int64_t tiles = order.count();
  // The W rows of N-tile n; past the last one, rows beyond W (zeros; no epilogue runs on them).
  auto weight_rows_of = [&](std::int64_t n) {
    if (n < n_tiles) return Epi::weight_rows(params, extent.n, MainLoop::kSubN, n);
    WeightRows none{};
    none.first[0] = none.first[1] = extent.n;
    return none;
  };
  RingPosition pos;
  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensor_map(&a_map);
      ptx::prefetch_tensor_map(&w_map);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, pair;
        order.coords(t, m_tile, pair);
        const WeightRows wr[MainLoop::kNSub] = {weight_rows_of(2 * pair), weight_rows_of(2 * pair + 1)};
        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
      }
    }
  } else {
    ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      std::int64_t m_tile, pair;
      order.coords(t, m_tile, pair);
      typename MainLoop::Accumulators acc;
      MainLoop::consume(s, pos, k_blocks, cw, acc);
      const std::int64_t n_tile = 2 * pair + cw;
      if (n_tile >= n_tiles) continue;  // an odd count's last pair: consumer 1 multiplied zeros
      const WeightRows wr = weight_rows_of(n_tile);
      const std::int64_t m0 = m_tile * MainLoop::BM;
      const std::int64_t rows = extent.m - m0 < MainLoop::BM ? extent.m - m0 : MainLoop::BM;  // the tile's tokens
      const int chunks = static_cast<int>((rows + MainLoop::kChunkRows - 1) / MainLoop::kChunkRows);
#pragma unroll 1
      for (int chunk = 0; chunk < chunks; ++chunk) {  // one call site of the epilogue
        MainLoop::stage(s, acc, cw, chunk);
        const std::int64_t row0 = m0 + chunk * MainLoop::kChunkRows;
        const int chunk_rows = MainLoop::BM - chunk * MainLoop::kChunkRows < MainLoop::kChunkRows
                                   ? MainLoop::BM - chunk * MainLoop::kChunkRows
                                   : MainLoop::kChunkRows;
        AccTile tile = AccTile::staged(s.staging[cw], MainLoop::kTileLd, row0, extent.m - row0, chunk_rows,
                                       MainLoop::kHalfRows, wr, threadIdx.x % 128, 128, 1 + cw);
        tile.sync();               // the consumer's whole chunk staged
        Epi::apply(params, tile);  // ends with the consumer's barrier: its staging tile is free again
      }
    }
  }
#else
  ptx::built_without_sm90a();
#endif
}

namespace detail {

// A persistent launch of `kernel` on MainLoop's CTAs for `items` work items: one CTA an SM at most.
template <class MainLoop, class Kernel>
Status persistent_shape(Kernel* kernel, std::int64_t items, const DeviceInfo& device, LaunchShape& shape) {
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  shape.block = dim3(MainLoop::kThreads);
  shape.smem = MainLoop::kSmemBytes;
  shape.grid = dim3(static_cast<unsigned>(items < device.sm_count ? items : device.sm_count));
  return {};
}

template <class T, class MainLoop, class Epi>
Status launch_sm90_wide_swapped(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                                const DeviceInfo& device, cudaStream_t stream) {
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::BM));
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kHalfRows));
  const TileOrder order{(op.m + MainLoop::BM - 1) / MainLoop::BM, (n_tiles + MainLoop::kNSub - 1) / MainLoop::kNSub};
  auto* kernel = &gemm_kernel_sm90_wide_swapped<MainLoop, Epi>;
  LaunchShape shape;
  FUSEKIT_TRY(persistent_shape<MainLoop>(kernel, order.count(), device, shape));
  return launch_kernel(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k}, n_tiles, order, params);
}

// `plan`: split_k.hpp's K segments of long, narrow weights (count 1 for the others), every tile
// whole; or, with plan.shared_fold, every tile split and one item a CTA on a cooperative launch,
// which overlaps the kernel before it as grid_overlap() says (kernel_sm90.hpp; `weights` runs as
// `prologue` here). Where the runtime cannot keep such a grid resident, nothing is launched and
// `*refused` is set (the caller runs another kernel, the same bits).
template <class T, class MainLoop, class Epi>
Status launch_sm90_swapped(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                           SplitPlan plan, const DeviceInfo& device, cudaStream_t stream, bool* refused = nullptr) {
  if (plan.shared_fold ? MainLoop::kChunks != 1 || plan.whole_tiles != 0 || plan.segments.count < 2
                       : !MainLoop::kFoldsSegments && plan.segments.count > 1)
    return {Errc::bad_argument, "these swapped tiles cannot sum K segments that way"};
  CUtensorMap a_map, w_map, out_map{};
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::BM));
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kHalfRows));
  if constexpr (kPairsInFragmentOn<MainLoop, Epi>) {  // the paired tiles' output, in boxes of a tile
    using Out = typename Epi::Store::Out;
    const auto& store = Epi::store_params(params);
    // One row's stride is never used, and need not be a multiple of 16 bytes (validate.hpp), as the
    // copy engine's is: give it the dense one (n / 2 is a multiple of 8: linear_glu).
    const std::int64_t cols = Epi::paired_cols(op.n), ld = op.m == 1 ? cols : store.ld;
    FUSEKIT_TRY(make_tensor_map_sw128(out_map, store.out, tensor_map_type<Out>(), op.m, cols, ld, MainLoop::BM));
  }
  const TileOrder order{(op.m + MainLoop::BM - 1) / MainLoop::BM, n_tiles};
  if (!plan.shared_fold) plan.whole_tiles = order.count();
  auto* kernel = &gemm_kernel_sm90_swapped<MainLoop, Epi>;
  const std::int64_t items = plan.items(order.count());
  LaunchShape shape;
  FUSEKIT_TRY(persistent_shape<MainLoop>(kernel, items, device, shape));
  const GemmExtent extent{op.m, op.n, op.k};
  if (!plan.shared_fold)
    return launch_kernel(kernel, shape, stream, a_map, w_map, out_map, extent, order, plan, params, GridOverlap::none);
  if (items > shape.grid.x) return {Errc::bad_argument, "SharedFold runs one item a CTA"};
  shape.cooperative = true;
  const GridOverlap overlap = grid_overlap().load(std::memory_order_relaxed);
  shape.dependent = overlap != GridOverlap::none;
  const cudaError_t e = launch_kernel_raw(kernel, shape, stream, a_map, w_map, out_map, extent, order, plan, params,
                                          overlap);
  if (e == cudaErrorCooperativeLaunchTooLarge && refused != nullptr) {  // e.g. an MPS client's share of the SMs
    (void)cudaGetLastError();
    *refused = true;
    return {};
  }
  return e == cudaSuccess ? Status{} : Status::cuda(e, "cudaLaunchKernelEx");
}

}  // namespace detail
}  // namespace fusekit::gemm
