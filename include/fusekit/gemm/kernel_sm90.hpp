// fusekit/gemm/kernel_sm90.hpp: the Hopper GEMM kernel = MainLoopSm90 + an Epilogue, warp-
// specialized and persistent: warpgroup 0 gives up registers and one of its threads streams
// tiles through the ring; warpgroups 1 and 2 take the registers, multiply, and run the
// epilogue on their own rows (named barriers, so the producer is already loading the next
// tile's slices meanwhile). Long, narrow weights cut K into segments (split_k.hpp): a tile's
// segments are summed in one CTA, or by several that meet in a global workspace.
// Callers validate arguments first (validate.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/fragment_fold.hpp"
#include "fusekit/gemm/mainloop_sm90.hpp"
#include "fusekit/gemm/split_k.hpp"
#include "fusekit/gemm/split_workspace.hpp"
#include "fusekit/gemm/tensor_map.hpp"
#include "fusekit/gemm/tile_scheduler.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

struct GemmExtent {
  std::int64_t m = 0, n = 0, k = 0;
};

// How a launch overlaps the kernel before it on the stream (programmatic dependent launch; see
// grid_overlap() below for the modes and where they are used).
enum class GridOverlap : std::uint8_t { none, prologue, weights };

// CTA b takes work items b, b + grid, ...: tiles of the order, or pairs of light tiles
// (tile_scheduler.hpp), or for segmented main loops split_k.hpp's SplitPlan items (whole tiles
// first, then one K segment of a split tile per item); the producer walks the same items.
template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                     GemmExtent extent, std::int64_t sub_tiles, TileOrder order, typename Epi::Params params,
                     SplitPlan plan, GridOverlap overlap) {
#ifdef FUSEKIT_SM90A
  auto& s = aligned_shared_storage<typename MainLoop::SharedStorage>();
  constexpr bool kSegmented = MainLoop::kSegmented;
  // Where the staging tiles are ring memory, both consumers must be done reading the ring before
  // either stages (the launcher gives every CTA a single k-range, so nothing refills it).
  auto ring_drained = [] {
    if constexpr (MainLoop::kStagingInRing) asm volatile("bar.sync 3, 256;\n" ::: "memory");
  };
  if (threadIdx.x == 0) MainLoop::init(s);
  __syncthreads();
  // Launched to overlap the previous grid (overlap != none), each thread that touches global
  // memory first waits for that grid to complete (W's first stages excepted in the `weights`
  // mode), and only then lets the next grid be scheduled: at most two grids are in flight, so
  // a grid that loads W early never runs beside one that might still write it. Plain launches
  // neither wait nor let the next grid start early.

  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  const std::int64_t items = kSegmented ? plan.items(order.count()) : order.items();
  // Item i's units of work: `first` and the count after it (tiles of the order, or one plan item).
  auto units = [&](std::int64_t i, std::int64_t& first) {
    if constexpr (kSegmented) {
      first = i;
      return 1;
    } else {
      return order.item_tiles(i, first);
    }
  };
  auto work = [&](std::int64_t u) { return kSegmented ? plan.item(u) : WorkItem{u, -1, -1}; };
  // The k-slices of an item: all of a whole tile's, or its segment's.
  auto slices = [&](const WorkItem& it, int& begin, int& end) {
    begin = 0, end = k_blocks;
    if (it.segment >= 0) plan.segments.range(it.segment, k_blocks, begin, end);
  };
  // The epilogue N-tiles of CTA tile column `tile_n`; past the last one, an empty source whose
  // rows lie beyond W (the copy engine fills them with zeros; no epilogue runs on them).
  auto sources = [&](std::int64_t tile_n, WeightRows (&wr)[MainLoop::kNSub]) {
#pragma unroll
    for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
      const std::int64_t t = tile_n * MainLoop::kNSub + sub;
      if (t < sub_tiles) {
        wr[sub] = Epi::weight_rows(params, extent.n, MainLoop::kSubN, t);
      } else {
        wr[sub] = WeightRows{};
        wr[sub].first[0] = wr[sub].first[1] = extent.n;
      }
    }
  };
  RingPosition pos;
  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensor_map(&a_map);
      ptx::prefetch_tensor_map(&w_map);
      if (overlap == GridOverlap::prologue) {
        wait_for_prior_grid();
        allow_next_grid();
      }
      bool first_unit = true;  // in the `weights` mode its first W slices go out before the wait
      for (std::int64_t i = blockIdx.x; i < items; i += gridDim.x) {
        std::int64_t first;
        const int count = units(i, first);
        for (std::int64_t u = first; u < first + count; ++u) {
          const WorkItem it = work(u);
          std::int64_t m_tile, n_tile;
          order.coords(it.tile, m_tile, n_tile);
          WeightRows wr[MainLoop::kNSub];
          sources(n_tile, wr);
          int begin, end;
          slices(it, begin, end);
          if (overlap == GridOverlap::weights && first_unit)
            MainLoop::produce_weights_first(s, pos, &a_map, &w_map, begin, end, m_tile * MainLoop::BM, wr);
          else
            MainLoop::produce(s, pos, &a_map, &w_map, begin, end, m_tile * MainLoop::BM, wr);
          first_unit = false;
        }
      }
    }
  } else {
    ptx::setmaxnreg_inc<232>();
    if (overlap != GridOverlap::none) {  // before the epilogue's inputs, the outputs, the split workspace
      wait_for_prior_grid();
      allow_next_grid();
    }
    const int cw = warpgroup - 1;
    // One unit a pass (`continue` goes to the next); an item's units (a light pair's two tiles)
    // run one after the other.
    std::int64_t i = blockIdx.x, u = 0, units_end = 0;
    for (;;) {
      if constexpr (kSegmented) {  // one unit an item: nothing to carry (these kernels are short of registers)
        if (i >= items) break;
        u = i;
        i += gridDim.x;
      } else if (u == units_end) {
        if (i >= items) break;
        const int count = units(i, u);
        units_end = u + count;
        i += gridDim.x;
      }
      const WorkItem it = work(kSegmented ? u : u++);
      std::int64_t m_tile, n_tile;
      order.coords(it.tile, m_tile, n_tile);
      WeightRows wr[MainLoop::kNSub];
      sources(n_tile, wr);
      typename MainLoop::Accumulators acc;
      const std::int64_t row0 = m_tile * MainLoop::BM + cw * MainLoop::kWgRows;
      const bool rows_here = row0 < extent.m;  // uniform over the warpgroup
      // A consumer with no rows in the tile only hands the stages back, and the other multiplies
      // alone: no tensor work on rows that are never stored (few-row and K-segment kernels; the
      // plain 128 x 256 kernel splits such a tile by N between its consumers, below).
      auto multiply = [&](int begin, int end) {
        if (rows_here)
          MainLoop::consume(s, pos, begin, end, cw, acc);
        else
          MainLoop::pass(s, pos, begin, end);
      };
      if constexpr (kSegmented && MainLoop::kNSub == 1) {
        static_assert(MainLoop::kFragmentFloats == SplitPlan::kPartialFloats, "SplitExchange's slot size");
        AccTile tile;
        bool shared = false;
        if constexpr (MainLoop::kStagingInRing) shared = plan.shared_fold;
        if (shared) {
          static_assert(MainLoop::BM == SharedFold::kRows && MainLoop::kSubN == 128 && MainLoop::kConsumers == 2,
                        "SharedFold's tile and its two counters fill SplitExchange's slots of one split tile");
          // One split item a CTA, the grid resident at once: both consumers stage into their
          // adjacent ring tiles (one 128-row tile), and the tile's CTAs fold and finish a share
          // of its rows each, on all 8 warps.
          int begin, end;
          plan.segments.range(it.segment, k_blocks, begin, end);
          multiply(begin, end);
          ring_drained();
          if (rows_here) MainLoop::template stage<Fold::store, false>(s, acc, cw, 0, extent.m, row0, wr[0]);
          const std::int64_t m0 = m_tile * MainLoop::BM;
          const int rows = static_cast<int>(extent.m - m0 < MainLoop::BM ? extent.m - m0 : MainLoop::BM);
          float* staged = MainLoop::staging(s, 0);
          SharedFold::exchange(plan, it, staged, MainLoop::kTileLd, rows, threadIdx.x - 128, 256,
                               [] { asm volatile("bar.sync 3, 256;\n" ::: "memory"); });
          int first, last;
          SharedFold::share(it.segment, plan.segments.count, rows, first, last);
          if (last == first) continue;  // fewer rows than segments
          tile = AccTile::staged(staged + first * MainLoop::kTileLd, MainLoop::kTileLd, m0 + first, last - first,
                                 last - first, MainLoop::kSubN / 2, wr[0], threadIdx.x - 128, 256, 3);
        } else {
          // A whole tile folds its segments into the staging tile in turn; a split tile's item
          // stages its one segment and meets the others in the workspace.
          const int first = it.segment >= 0 ? it.segment : 0;
          const int last = it.segment >= 0 ? it.segment : plan.segments.count - 1;
          for (int seg = first; seg <= last; ++seg) {
            int begin, end;
            plan.segments.range(seg, k_blocks, begin, end);
            multiply(begin, end);
            ring_drained();
            if (!rows_here) continue;
            tile = seg == first ? MainLoop::stage(s, acc, cw, 0, extent.m, row0, wr[0])
                                : MainLoop::template stage<Fold::add>(s, acc, cw, 0, extent.m, row0, wr[0]);
          }
          if (!rows_here) continue;
          if (it.segment >= 0 &&
              !SplitExchange<MainLoop::kConsumers>::publish_or_fold(plan, it, cw, tile, &s.arrived[cw]))
            continue;  // a partner folds this tile
        }
        Epi::apply(params, tile);
      } else if constexpr (kSegmented) {
        // 128 x 256 tiles: the same segments and additions. A whole tile folds N-tile 0 in the
        // staging tile, as narrow tiles do, and N-tile 1 in this CTA's slot of the workspace
        // (fragment_fold.hpp); a split tile's item publishes its fragment.
        using Exchange = FragmentExchange<MainLoop::kConsumers, MainLoop::BN / 2>;
        using Sub = Fragment<MainLoop::kSubN / 2>;  // N-tile 1's part of the fragment
        static_assert(MainLoop::kNSub == 2 && Sub::kFloats == MainLoop::kSubFragmentFloats);
        const float* acc1 = acc.v + MainLoop::kSubN / 2;
        const bool split = it.segment >= 0;
        const int first = split ? it.segment : 0, last = split ? it.segment : plan.segments.count - 1;
        float* running = plan.running == nullptr  // K in one segment, or every tile split: no slots
                             ? nullptr
                             : plan.running + (std::int64_t(blockIdx.x) * MainLoop::kConsumers + cw) * Sub::kFloats;
        const int t = threadIdx.x % 128;
        for (int seg = first; seg <= last; ++seg) {
          int begin, end;
          plan.segments.range(seg, k_blocks, begin, end);
          multiply(begin, end);
          if (!rows_here || seg == last) continue;
          // Only this thread reads back what it stages or parks here: no barrier.
          if (seg == first) {
            MainLoop::template stage<Fold::store, false>(s, acc, cw, 0, extent.m, row0, WeightRows{});
            Sub::store(running, acc1, t);
          } else {
            MainLoop::template stage<Fold::add, false>(s, acc, cw, 0, extent.m, row0, WeightRows{});
            Sub::accumulate(running, acc1, t);
          }
        }
        if (!rows_here) continue;
        if (split && !Exchange::publish(plan, it, cw, acc.v, 1 + cw, &s.arrived[cw])) continue;  // a partner folds
        WeightRows src[MainLoop::kNSub];  // computed only now: nothing more stays live through the segments
        sources(n_tile, src);
        const bool has_second = n_tile * MainLoop::kNSub + 1 < sub_tiles;
        // One call site of the epilogue (the N-tile loop is not unrolled; two inlined copies
        // measured 3% slower here, RESULTS.md step 13). A split tile's last arrival stages the
        // fold of every segment's fragment from the workspace; a whole tile stages N-tile 0 from
        // the staging tile it folded in, and N-tile 1 from its accumulators plus its slot, the 16
        // loads all in flight (after N-tile 0's epilogue only N-tile 1's 64 accumulators are live).
        auto stage_sub = [&](int sub) -> AccTile {
          if (split)
            return MainLoop::template stage_values<8>(s, cw, sub, extent.m, row0, sub == 0 ? src[0] : src[1],
                                                      [&](int q) { return Exchange::folded(plan, it, cw, q); });
          if (sub == 0)
            return first == last ? MainLoop::stage(s, acc, cw, 0, extent.m, row0, src[0])
                                 : MainLoop::template stage<Fold::add>(s, acc, cw, 0, extent.m, row0, src[0]);
          return MainLoop::template stage_values<Sub::kVectors>(s, cw, 1, extent.m, row0, src[1], [&](int q) {
            const int j = q - Sub::kVectors;
            return first == last ? Sub::own(acc1, j) : Sub::add(Sub::load(running, j, t), Sub::own(acc1, j));
          });
        };
#pragma unroll 1
        for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
          if (sub == 1 && !has_second) break;
          AccTile tile = stage_sub(sub);
          Epi::apply(params, tile);
        }
      } else if constexpr (MainLoop::kStagingInRing) {
        // Few rows, one tile per CTA: the second consumer holds at most 8 of the rows, so the
        // consumers stage every N-tile into the drained ring first (no accumulator stays live
        // through the epilogue), side by side, and all 8 warps share the epilogue of the CTA's
        // rows instead of the first consumer's 4 warps doing nearly all of it.
        static_assert(MainLoop::kNSub <= 2, "the N-tile select below takes wr[0] or wr[1]");
        multiply(0, k_blocks);
        ring_drained();
        const std::int64_t m0 = row0 - cw * MainLoop::kWgRows;
#pragma unroll
        for (int sub = 0; sub < MainLoop::kNSub; ++sub)
          if (rows_here && n_tile * MainLoop::kNSub + sub < sub_tiles)
            MainLoop::template stage<Fold::store, false>(s, acc, cw, sub, extent.m, row0, wr[sub], sub);
        // Both consumers' rows staged. The only barrier here: a consumer's own 128-thread barrier
        // would be used by one consumer alone where the other has no rows, which racecheck
        // (CUDA 13.0) reports as hazards across the shared barrier that follows.
        asm volatile("bar.sync 3, 256;\n" ::: "memory");
#pragma unroll 1
        for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
          if (n_tile * MainLoop::kNSub + sub >= sub_tiles) break;
          const WeightRows source = sub == 0 ? wr[0] : wr[MainLoop::kNSub - 1];  // kNSub == 2; wr stays in registers
          AccTile tile = AccTile::staged(MainLoop::staging(s, 0, sub), MainLoop::kTileLd, m0, extent.m - m0,
                                         MainLoop::BM, MainLoop::kSubN / 2, source, threadIdx.x - 128, 256, 3);
          Epi::apply(params, tile);  // ends with the 256 threads' barrier
        }
      } else {
        if constexpr (MainLoop::kNSub == 2) {
          if (m_tile * MainLoop::BM + MainLoop::kWgRows >= extent.m) {
            // A light tile: both consumers on the first consumer's rows, one N-tile each.
            const std::int64_t m0 = m_tile * MainLoop::BM;
            const bool columns_here = n_tile * MainLoop::kNSub + cw < sub_tiles;  // uniform over the warpgroup
            if (columns_here)
              MainLoop::template consume<MainLoop::kSubN>(s, pos, 0, k_blocks, cw, acc);
            else
              MainLoop::pass(s, pos, 0, k_blocks);
            if (!columns_here) continue;
            // This N-tile's source, computed afresh: selecting wr[cw] would put wr on the stack.
            const WeightRows source =
                Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile * MainLoop::kNSub + cw);
            AccTile tile = MainLoop::stage(s, acc, cw, 0, extent.m, m0, source);
            Epi::apply(params, tile);
            continue;
          }
        }
        multiply(0, k_blocks);
        if (!rows_here) continue;
#pragma unroll
        for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
          if (n_tile * MainLoop::kNSub + sub >= sub_tiles) break;
          AccTile tile = MainLoop::stage(s, acc, cw, sub, extent.m, row0, wr[sub]);
          Epi::apply(params, tile);  // ends with the group's barrier: the staging tile is free again
        }
      }
    }
  }
#else
  ptx::built_without_sm90a();
#endif
}

// How the few-row K-segment kernel (HopperNarrowDeepMainLoop: few-row calls of long, narrow
// weights whose epilogue is not column-local, or whose way is forced; out_proj and fc2 at 70
// tokens take the half-swapped kernel, which launches plainly: kernel_sm90_half_swapped.hpp)
// overlaps the kernel before it on the stream, through programmatic dependent launch
// (core/launch.cuh). `prologue` (the default): its CTAs may start as the previous grid's leave,
// set up their barriers and tensor maps, and touch no global memory until that grid has
// completed. `weights`: the producers also load W's first ring stages before then, so the weight
// stream starts under the previous kernel's tail; only where no kernel that may still run
// writes W (the kernel before on the stream, and any it lets run beside itself: fusekit's
// kernels let none). A model's weights, loaded once, qualify. `none`: a plain launch. The other
// kernels launch plainly: measured (H200, RESULTS.md, fourteenth session), the overlap made them
// up to 5% slower, and qkv_proj at 70 tokens 25% (its 84 CTAs leave 48 SMs idle, which the next
// grid's CTAs take early; why that costs so much is not known), while these CTAs, one k-range
// each, gained 1-4% (prologue) and 8-12% (weights) with the last-arrival fold; with SharedFold
// `weights` gains nothing (RESULTS.md, twenty-fourth session).
inline std::atomic<GridOverlap>& grid_overlap() {
  static std::atomic<GridOverlap> overlap{GridOverlap::prologue};
  return overlap;
}

// Process-wide switch for light pairs (tile_scheduler.hpp; on by default): tests compare the
// orders bit for bit, benchmarks time them.
inline std::atomic<bool>& light_tile_pairs() {
  static std::atomic<bool> on{true};
  return on;
}

namespace detail {

template <class T> constexpr CUtensorMapDataType tensor_map_type() {
  return std::is_same_v<T, bf16_t> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

template <class MainLoop> constexpr TileOrder tile_order(std::int64_t m, std::int64_t n_tiles) {
  return {(m + MainLoop::BM - 1) / MainLoop::BM, (n_tiles + MainLoop::kNSub - 1) / MainLoop::kNSub};
}

// How a call on long, narrow weights cuts K and which of its `order`'s tiles it splits. The
// segment count comes from the 128-column N-tiles (`n_tiles`), so both tile widths cut K alike.
// Pure host arithmetic: the workspace comes from attach_workspace.
constexpr SplitPlan segment_plan(const TileOrder& order, std::int64_t n_tiles, int k_blocks, int sm_count,
                              SplitKWay way) {
  SplitPlan plan;
  if (way != SplitKWay::unsplit) plan.segments.count = choose_k_segments(n_tiles, k_blocks, sm_count);
  const std::int64_t split = plan.segments.count < 2    ? 0
                             : way == SplitKWay::split ? order.count()
                             : way == SplitKWay::whole ? 0
                                                       : split_tail_tiles(order.count(), plan.segments.count, sm_count);
  plan.whole_tiles = order.count() - split;
  return plan;
}

// The plan's global memory (split_workspace.hpp): the split tiles' partials and arrival counters,
// and for 128 x 256 tiles that fold whole in one CTA, each CTA's running sums.
template <class MainLoop>
Status attach_workspace(SplitPlan& plan, std::int64_t tiles, const DeviceInfo& device, cudaStream_t stream) {
  const std::int64_t split = tiles - plan.whole_tiles;
  const bool running = MainLoop::kNSub == 2 && plan.segments.count > 1 && plan.whole_tiles > 0;
  if (split == 0 && !running) return {};
  const std::size_t slots = std::size_t(split) * MainLoop::kConsumers;
  const std::size_t partial_floats = slots * plan.segments.count * MainLoop::kFragmentFloats;
  const std::size_t running_floats =
      running ? std::size_t(device.sm_count) * MainLoop::kConsumers * MainLoop::kSubFragmentFloats : 0;
  SplitBuffers buffers;
  FUSEKIT_TRY(split_workspace(device.ordinal, stream, partial_floats + running_floats, slots > 0 ? slots : 1, buffers));
  plan.partials = buffers.partials;
  plan.arrivals = buffers.arrivals;
  if (running) plan.running = buffers.partials + partial_floats;
  return {};
}

// Whether a call takes a few-row deep kernel: at most `few_rows` rows (its A stages' height), and
// every CTA of the persistent grid runs a single k-range (one item, not a folded whole tile), so
// the ring may hold the staging tiles (MainLoopSm90's StagingInRing).
inline bool few_rows_one_range(const SplitPlan& plan, std::int64_t m, std::int64_t few_rows, std::int64_t tiles,
                               int sm_count) {
  return m <= few_rows && plan.items(tiles) <= sm_count && (plan.segments.count == 1 || plan.whole_tiles == 0);
}

// n_tiles: the epilogue's 128-column N-tiles (a CTA tile holds MainLoop::kNSub of them). `plan`
// comes from segment_plan and attach_workspace for segmented main loops; the others run every
// tile whole in one segment.
template <class T, class MainLoop, class Epi>
Status launch_sm90(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                   const SplitPlan& plan, const DeviceInfo& device, cudaStream_t stream) {
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::kARows));
  // A weight streamed once is fetched 128 bytes a miss, not 256: the row's next 128 bytes would
  // wait in L2 for the next k-slice (H200, 70 tokens: qkv_proj 6% faster, out_proj and fc2
  // 1%; RESULTS.md, twenty-fourth session).
  const CUtensorMapL2promotion w_promotion =
      MainLoop::kStreamsWeightOnce ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kSubN / 2,
                                    w_promotion));
  TileOrder order = tile_order<MainLoop>(op.m, n_tiles);
  if constexpr (!MainLoop::kSegmented && !MainLoop::kStagingInRing)
    if (light_tile_pairs().load(std::memory_order_relaxed))
      order = with_light_pairs(order, op.m, MainLoop::BM, MainLoop::kWgRows, device.sm_count);
  auto* kernel = &gemm_kernel_sm90<MainLoop, Epi>;
  LaunchShape shape;
  shape.block = dim3(MainLoop::kThreads);
  shape.smem = MainLoop::kSmemBytes;
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  const std::int64_t items = MainLoop::kSegmented ? plan.items(order.count()) : order.items();
  const std::int64_t ctas = device.sm_count;  // persistent: one CTA per SM at most
  shape.grid = dim3(static_cast<unsigned>(items < ctas ? items : ctas));
  constexpr bool kOverlaps = MainLoop::kSegmented && MainLoop::kStagingInRing;  // see grid_overlap()
  const GridOverlap overlap = kOverlaps ? grid_overlap().load(std::memory_order_relaxed) : GridOverlap::none;
  shape.dependent = overlap != GridOverlap::none;
  SplitPlan launched = plan;
  if constexpr (MainLoop::kSegmented && MainLoop::kStagingInRing && MainLoop::kNSub == 1) {
    // Every item split and one a CTA (few_rows_one_range): SharedFold, on a cooperative launch.
    launched.shared_fold = plan.segments.count > 1 && plan.whole_tiles == 0 && items <= shape.grid.x &&
                           split_fold().load(std::memory_order_relaxed) == SplitFold::automatic;
    shape.cooperative = launched.shared_fold;
  }
  if (shape.cooperative) {
    const cudaError_t e = launch_kernel_raw(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k},
                                            n_tiles, order, params, launched, overlap);
    if (e != cudaErrorCooperativeLaunchTooLarge) return e == cudaSuccess ? Status{} : Status::cuda(e, "cudaLaunchKernelEx");
    // The runtime finds the grid cannot be resident at once (fewer SMs than the device has: an
    // MPS client's share): nothing was launched, so the tile's CTAs fold at the last arrival
    // instead, the same bits.
    (void)cudaGetLastError();
    shape.cooperative = launched.shared_fold = false;
  }
  return launch_kernel(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k}, n_tiles, order,
                       params, launched, overlap);
}

}  // namespace detail
}  // namespace fusekit::gemm
