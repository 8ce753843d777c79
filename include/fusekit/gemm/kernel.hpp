// fusekit/gemm/kernel.hpp: a GEMM kernel = main loop + epilogue, and the host launcher that
// picks the main loop (Hopper's where the GPU and the build have it, else the portable one)
// and the tile shape. Callers validate arguments first (validate.hpp); this file trusts them.
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/kernel_sm90.hpp"
#include "fusekit/gemm/kernel_sm90_half_swapped.hpp"
#include "fusekit/gemm/kernel_sm90_swapped.hpp"
#include "fusekit/gemm/mainloop_sm80.hpp"
#include "fusekit/gemm/tile_shape.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

namespace fusekit::gemm {

// One CTA: one BM-row tile of A (blockIdx.x, fastest, so CTAs that share W rows run together
// and hit L2) times the W rows its epilogue chooses for N-tile blockIdx.y.
template <class MainLoop, class Epi, class T>
__global__ void __launch_bounds__(MainLoop::kThreads) gemm_kernel(GemmOperands<T> op, typename Epi::Params params) {
  extern __shared__ __align__(128) unsigned char smem[];
  const std::int64_t m0 = std::int64_t(blockIdx.x) * MainLoop::BM;
  const WeightRows wr = Epi::weight_rows(params, op.n, MainLoop::BN, blockIdx.y);
  typename MainLoop::Accumulators acc;
  MainLoop::run(smem, op, m0, wr, acc);
  AccTile tile = MainLoop::stage(acc, smem, op, m0, wr);
  Epi::apply(params, tile);
}

namespace detail {

template <class T, class Shape, class Epi>
Status launch_with_shape(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                         cudaStream_t stream) {
  using MainLoop = MainLoopSm80<T, Shape>;
  auto* kernel = &gemm_kernel<MainLoop, Epi, T>;
  // Opt in to more than 48 KB of dynamic shared memory (idempotent, per device; cheap).
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  const dim3 grid(static_cast<unsigned>((op.m + Shape::kBlockM - 1) / Shape::kBlockM),
                  static_cast<unsigned>(n_tiles));
  kernel<<<grid, Shape::kThreads, MainLoop::kSmemBytes, stream>>>(op, params);
  FUSEKIT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace detail

// Largest grid dimension y (N-tiles) the portable launcher accepts. M and K stay below 2^31 by a
// tile: the Hopper main loops give the copy engine 32-bit coordinates (row m0 of A, column k of
// A and W), which would wrap past that and read zeros instead of the rows asked for.
inline constexpr std::int64_t kMaxNTiles = 65535;
inline constexpr std::int64_t kMaxRows = (std::int64_t(1) << 31) - 256;
inline constexpr std::int64_t kMaxK = (std::int64_t(1) << 31) - 64;

enum class GemmPath : std::uint8_t { automatic, portable, hopper };

// 128 x 256 CTA tiles (two epilogue N-tiles), 3 stages of 64-deep k-slices: 144 KB of ring plus
// 68 KB of fp32 staging for the two consumers' epilogues.
template <class T> using HopperMainLoop = MainLoopSm90<T, 2, 3>;
// Calls of at most kFewRows rows with at most one tile per SM (70 tokens: qkv_proj's 84, fc1's
// 112) stream the weight from HBM: the same tiles with 72-row A stages (41 KB instead of 48) and
// the staging tiles in the drained ring fit 5 stages instead of 3.
inline constexpr std::int64_t kFewRows = 72;
template <class T> using HopperDeepMainLoop = MainLoopSm90<T, 2, 5, true, kFewRows>;
// Long, narrow weights (below) cut K into segments (split_k.hpp), on one of three tile kinds
// with the same bits (wgmma's per-element sums do not depend on N; the third, the swapped
// 160-token tiles, is below with the other swapped tiles):
// 128 x 128 tiles, 4 stages (128 KB of ring), the segments folded in the staging tile.
template <class T> using HopperNarrowMainLoop = MainLoopSm90<T, 1, 4>;
// The same tiles and instructions (the same bits) with 72-row A stages and the staging tiles in
// the ring: 9 stages instead of 4, for narrow calls of at most kFewRows rows where every CTA runs
// one k-range (70 tokens: 126 CTAs, one K third each).
template <class T> using HopperNarrowDeepMainLoop = MainLoopSm90<T, 1, 9, true, kFewRows>;
// HopperMainLoop's 128 x 256 tiles with the segments folded in the registers (fragment_fold.hpp):
// half the tiles of the narrow loop, each cheaper per column, for calls with many tiles (925
// tokens: 168 tiles in one whole wave and a wave of thirds, against 336 narrow tiles in 3 waves).
template <class T> using HopperWideSegmentedMainLoop = MainLoopSm90<T, 2, 3, false, 0, true>;

// Tokens as the wgmma's N (kernel_sm90_swapped.hpp), tiles of 128 columns and two heights: 160
// tokens (5 stages, two 80-token epilogue chunks) and 232 (4 stages, chunks of 64; 925 tokens are
// 4 such tiles of 928 rows, cuBLASLt's 128 x 232 for fc1). The same bits as the 128 x 256 tiles,
// so M may choose among them.
template <class T> using HopperSwappedMainLoop = SwappedMainLoopSm90<T, 160, 5>;
template <class T> using HopperTallSwappedMainLoop = SwappedMainLoopSm90<T, 232, 4, 64>;
// Few-row calls (at most kFewRows tokens) on swapped tiles of 72 tokens, 7 stages: the 128 x 256
// tiles' 72-row A stages spend 56 of each consumer's 128 MMA rows on padding, these none (the
// tokens are the wgmma's N, m64n72k16), and a CTA takes one N-tile, so twice as many CTAs stream
// the weight (fc1 at 70 tokens: 224 tiles on 132 SMs instead of 112).
template <class T> using HopperFewSwappedMainLoop = SwappedMainLoopSm90<T, kFewRows, 7>;
// The same tokens on 256 x 72 tiles (two N-tiles a CTA, a consumer's each, 5 stages, 16-token
// epilogue chunks), where 128 x 72 tiles would leave a short last round.
template <class T> using HopperFewWideSwappedMainLoop = WideSwappedMainLoopSm90<T, kFewRows, 5, 16>;

// Few-row calls of long, narrow weights (below) with column-local epilogues (out_proj and fc2 at
// 70 tokens): one 64-row W half a CTA over the whole K, 72-token tiles, 12 stages of 17 KB, the
// K segments folded in the registers (kernel_sm90_half_swapped.hpp): cuBLASLt's shape for these
// calls, with no exchange after the math.
template <class T> using HopperHalfSwappedMainLoop = HalfSwappedMainLoopSm90<T, kFewRows, 12>;
template <class Epi> inline constexpr bool kColumnLocalEpilogue = requires { requires Epi::kColumnLocal; };

// Rounds of `tiles` equal tiles on `sm_count` SMs (one tile per SM at a time): what the busiest
// SM runs, in the tile-choice models below.
constexpr double tile_rounds(std::int64_t tiles, int sm_count) {
  return double((tiles + sm_count - 1) / (sm_count > 0 ? sm_count : 1));
}

// Which tiles a call of whole tiles takes: `never` = the 128 x 256 ones.
enum class SwappedTiles : std::uint8_t { automatic, never, rows160, rows232, rows72, wide72 };

// Few-row calls (kernel_sm90.hpp's few_rows_one_range on the 128 x 256 tiles): 72-token tiles,
// one N-tile a CTA, where they fill their rounds (n_tiles within the SMs, or a last round of at
// least half of them: fc1's 224 at 70 tokens on 132 SMs); otherwise (qkv_proj's 168: a second
// round of 36) two N-tiles a CTA, one round. Measured on an H100 (RESULTS.md, forty-ninth
// session): the SMs that stream to the end decide, not the rounds.
constexpr SwappedTiles choose_few_row_tiles(std::int64_t n_tiles, int sm_count) {
  if (sm_count < 1) return SwappedTiles::never;
  const std::int64_t last_round = n_tiles % sm_count;
  return n_tiles <= sm_count || 2 * last_round >= sm_count ? SwappedTiles::rows72 : SwappedTiles::wide72;
}

// The modeled time of each: the busiest SM's rounds of tiles, a swapped tile costing a share of a
// 128 x 256 one. Measured (H200, RESULTS.md, fifteenth session; bare qkv_proj and fc1, 150 to
// 2048 tokens) a 160-token tile costs 0.64-0.81 of one and a 232-token tile 0.91-1.06; with 0.7
// and 0.95 the model picks the fastest measured tiles but for fc1 at 768 tokens (4% left there).
// qkv_proj at 925 tokens: 160-token tiles, 8 rounds x 0.7 against 6; fc1 at 925: 232-token tiles,
// 7 x 0.95 against 7.
inline constexpr double kSwappedTileCost = 0.7, kTallSwappedTileCost = 0.95;
constexpr SwappedTiles choose_swapped_tiles(std::int64_t m, std::int64_t n_tiles, int sm_count) {
  if (sm_count < 1) return SwappedTiles::never;
  const double plain = tile_rounds((m + 127) / 128 * ((n_tiles + 1) / 2), sm_count);
  const double rows160 = tile_rounds((m + 159) / 160 * n_tiles, sm_count) * kSwappedTileCost;
  const double rows232 = tile_rounds((m + 231) / 232 * n_tiles, sm_count) * kTallSwappedTileCost;
  if (rows160 < plain && rows160 <= rows232) return SwappedTiles::rows160;
  if (rows232 < plain) return SwappedTiles::rows232;
  return SwappedTiles::never;
}

// Process-wide override of that choice: tests compare the tiles bit for bit, benchmarks time them.
inline std::atomic<SwappedTiles>& swapped_tiles() {
  static std::atomic<SwappedTiles> choice{SwappedTiles::automatic};
  return choice;
}

// Long, narrow weights: K long (>= 6144: H3's out_proj and fc2, K = 7168 and 14336) and 256-wide
// tiles leaving more than half the SMs without a tile column (21 columns). They cut K into
// segments so that small M still streams the weight on most SMs (3 x 42 narrow CTAs at 70
// tokens). N and K decide, never M, so a row's result does not depend on how many rows share the
// call; the K floor keeps H3's q, k and v thirds (K = 5376) on the same tiles as the fused qkv
// projection.
constexpr bool k_segmented_weight(std::int64_t n_tiles, std::int64_t k, int sm_count) {
  return k >= 6144 && 2 * ((n_tiles + 1) / 2) <= sm_count;
}

// Modeled time of a segment plan: the busiest CTA's k-slices (CTA b runs items b, b + grid, ...),
// a k-slice of a 128 x 256 tile costing `slice_cost` of a 128 x 128 one, and each item of a split
// tile `split_cost` k-slices more (the exchange, and a ring that fills again).
constexpr double busiest_cta_slices(const SplitPlan& plan, std::int64_t tiles, int k_blocks, int sm_count,
                                    double slice_cost, double split_cost) {
  const std::int64_t items = plan.items(tiles), grid = items < sm_count ? items : sm_count;
  const double whole = k_blocks * slice_cost;
  const double part = (k_blocks + plan.segments.count - 1) / plan.segments.count * slice_cost + split_cost;
  double busiest = 0;
  for (std::int64_t b = 0; b < grid; ++b) {
    const std::int64_t whole_items = b < plan.whole_tiles ? (plan.whole_tiles - 1 - b) / grid + 1 : 0;
    const std::int64_t first_part = b + whole_items * grid;  // b's first item past the whole tiles
    const std::int64_t parts = first_part < items ? (items - 1 - first_part) / grid + 1 : 0;
    const double t = whole_items * whole + parts * part;
    busiest = t > busiest ? t : busiest;
  }
  return busiest;
}

// The model's constants, fitted to out_proj and fc2 with their residual epilogues (256 to 4096
// tokens, both widths forced; H200, 2026-12-01, RESULTS.md): a 128 x 256 k-slice costs 1.95
// narrow ones (the wide kernel's epilogue costs more), a split item 20 narrow k-slices more on
// narrow tiles and 40 on wide ones. With them the model picks the faster width at every
// measured M. A 160-token swapped tile's k-slice is counted as kSwappedTileCost of a wide one.
inline constexpr double kWideSliceCost = 1.95, kNarrowSplitCost = 20, kWideSplitCost = 40;
inline constexpr double kSwappedSliceCost = kSwappedTileCost * kWideSliceCost;

// Which tiles a long, narrow weight's call takes, from the modeled time of each plan (M only
// changes the speed: all give the same bits). Swapped: 160-token tiles, every one whole, the
// segments folded in the registers (mainloop_sm90_swapped.hpp). Few-swapped, forced only: few-row
// calls (few_rows_one_range, every tile split) on 72-token tiles, one K segment a CTA, folded in
// shares (kernel_sm90_swapped.hpp); measured no faster than the narrow few-row kernel (H100,
// RESULTS.md, fiftieth session: out_proj fused 1.02x slower, bare 1.01x faster). Other calls
// forced to it run narrow. Half-swapped: few-row calls with column-local epilogues take it
// before this model is asked (launch_gemm; a forced call of any M too); no split, nothing to model.
enum class SegmentTiles : std::uint8_t { automatic, narrow, wide, swapped, few_swapped, half_swapped };
constexpr SegmentTiles choose_segment_tiles(std::int64_t m, std::int64_t n_tiles, std::int64_t k, int sm_count) {
  using Narrow = HopperNarrowMainLoop<bf16_t>;  // the tile shapes do not depend on the 16-bit type
  using Wide = HopperWideSegmentedMainLoop<bf16_t>;
  using Swapped = HopperSwappedMainLoop<bf16_t>;
  const int k_blocks = static_cast<int>((k + Narrow::BK - 1) / Narrow::BK);
  const TileOrder narrow = detail::tile_order<Narrow>(m, n_tiles), wide = detail::tile_order<Wide>(m, n_tiles);
  const SplitPlan pn = detail::segment_plan(narrow, n_tiles, k_blocks, sm_count, SplitKWay::automatic);
  const SplitPlan pw = detail::segment_plan(wide, n_tiles, k_blocks, sm_count, SplitKWay::automatic);
  const std::int64_t swapped_tiles = (m + Swapped::BM - 1) / Swapped::BM * n_tiles;
  const double t_narrow = busiest_cta_slices(pn, narrow.count(), k_blocks, sm_count, 1.0, kNarrowSplitCost);
  const double t_wide = busiest_cta_slices(pw, wide.count(), k_blocks, sm_count, kWideSliceCost, kWideSplitCost);
  const double t_swapped = tile_rounds(swapped_tiles, sm_count) * k_blocks * kSwappedSliceCost;
  if (t_swapped < t_narrow && t_swapped < t_wide) return SegmentTiles::swapped;
  return t_wide < t_narrow ? SegmentTiles::wide : SegmentTiles::narrow;
}

// Process-wide override of that choice (tests compare the kinds bit for bit; benchmarks time them).
// It alone decides for long, narrow weights: swapped_tiles() does not apply to them.
inline std::atomic<SegmentTiles>& segment_tiles() {
  static std::atomic<SegmentTiles> tiles{SegmentTiles::automatic};
  return tiles;
}

// Process-wide choice of main loop. `automatic` (the default) takes the Hopper one wherever it
// can run; tests and benchmarks set `portable` to compare both paths on one GPU.
inline std::atomic<GemmPath>& gemm_path() {
  static std::atomic<GemmPath> path{GemmPath::automatic};
  return path;
}

namespace detail {
// The Hopper kernel needs compute capability 9.0 and sm_90a machine code in this binary (a
// build for other targets compiles it to a trap): binary version 9.0, compiled from sm_90 code
// (not an older target's PTX compiled here at load time), and none of the static shared memory
// that marks the body of a build without sm_90a (a plain sm_90 build: kernel_sm90.hpp). Known
// once the attributes could be read; a failure to read them is asked again next call.
template <class T, class Epi> bool hopper_available(const DeviceInfo& device) {
  if (device.major != 9 || device.minor != 0) return false;
  static std::atomic<signed char> known{0};  // 0: not asked yet, 1: yes, -1: no
  if (const signed char k = known.load(std::memory_order_relaxed); k != 0) return k > 0;
  const void* kernel = reinterpret_cast<const void*>(&gemm_kernel_sm90<HopperMainLoop<T>, Epi>);
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    cudaGetLastError();  // not sticky: the portable path runs this call
    return false;
  }
  const bool yes = attr.binaryVersion == 90 && compiled_for_sm90(attr) && attr.sharedSizeBytes == 0;
  known.store(yes ? 1 : -1, std::memory_order_relaxed);
  return yes;
}
}  // namespace detail

// Launches Epi on Y = A * W^T. op.m > 0; the device picks the main loop and the tile shape.
template <class T, class Epi>
Status launch_gemm(const GemmOperands<T>& operands, const typename Epi::Params& params, const DeviceInfo& device,
                   cudaStream_t stream) {
  // One row of A has no row stride, but the copy engine wants a multiple of 16 bytes even then:
  // a row of a padded batch (stride K + 4, say) runs as the dense row it is.
  GemmOperands<T> op = operands;
  if (op.m == 1) op.lda = op.k;
  const std::int64_t n_tiles = Epi::n_tiles(params, op.n, kTileN);
  const GemmPath path = gemm_path().load(std::memory_order_relaxed);
  if (path != GemmPath::portable && detail::hopper_available<T, Epi>(device)) {
    if (k_segmented_weight(n_tiles, op.k, device.sm_count)) {
      using Narrow = HopperNarrowMainLoop<T>;
      using Wide = HopperWideSegmentedMainLoop<T>;
      static_assert(Narrow::BK == Wide::BK && Narrow::BK == HopperSwappedMainLoop<T>::BK,
                    "the segments' k-slice boundaries are the same on every tile kind");
      const int k_blocks = static_cast<int>((op.k + Narrow::BK - 1) / Narrow::BK);
      const SplitKWay way = split_k_way().load(std::memory_order_relaxed);
      const TileOrder narrow = detail::tile_order<Narrow>(op.m, n_tiles);
      SplitPlan plan = detail::segment_plan(narrow, n_tiles, k_blocks, device.sm_count, way);
      const bool few_rows = detail::few_rows_one_range(plan, op.m, kFewRows, narrow.count(), device.sm_count);
      SegmentTiles width = segment_tiles().load(std::memory_order_relaxed);
      // Half-swapped: few-row calls with column-local epilogues, or forced (any M; others run narrow).
      // A forced way (split_k_way) keeps the kernels that split or not as it says.
      if constexpr (kColumnLocalEpilogue<Epi>)
        if (width == SegmentTiles::half_swapped ||
            (width == SegmentTiles::automatic && way == SplitKWay::automatic && few_rows))
          return detail::launch_sm90_half_swapped<T, HopperHalfSwappedMainLoop<T>, Epi>(op, params, plan.segments, device,
                                                                                       stream);
      if (width == SegmentTiles::automatic)
        width = few_rows ? SegmentTiles::narrow : choose_segment_tiles(op.m, n_tiles, op.k, device.sm_count);
      if (width == SegmentTiles::swapped)  // every tile whole: only the plan's segments apply
        return detail::launch_sm90_swapped<T, HopperSwappedMainLoop<T>, Epi>(op, params, n_tiles,
                                                                            SplitPlan{plan.segments}, device, stream);
      if (width == SegmentTiles::wide) {
        const TileOrder wide = detail::tile_order<Wide>(op.m, n_tiles);
        plan = detail::segment_plan(wide, n_tiles, k_blocks, device.sm_count, way);
        FUSEKIT_TRY(detail::attach_workspace<Wide>(plan, wide.count(), device, stream));
        return detail::launch_sm90<T, Wide, Epi>(op, params, n_tiles, plan, device, stream);
      }
      FUSEKIT_TRY(detail::attach_workspace<Narrow>(plan, narrow.count(), device, stream));
      if (few_rows && width == SegmentTiles::few_swapped && plan.segments.count > 1 &&
          split_fold().load(std::memory_order_relaxed) == SplitFold::automatic) {
        using Few = HopperFewSwappedMainLoop<T>;
        static_assert(Few::BM == kFewRows && Few::kChunks == 1, "one token tile, staged whole");
        SplitPlan shared = plan;  // every tile split (few_rows_one_range), the same tiles and items as Narrow's
        shared.shared_fold = true;
        bool refused = false;
        const Status launched =
            detail::launch_sm90_swapped<T, Few, Epi>(op, params, n_tiles, shared, device, stream, &refused);
        if (!refused) return launched;
      }
      if (few_rows)
        return detail::launch_sm90<T, HopperNarrowDeepMainLoop<T>, Epi>(op, params, n_tiles, plan, device, stream);
      return detail::launch_sm90<T, Narrow, Epi>(op, params, n_tiles, plan, device, stream);
    }
    SplitPlan whole;
    whole.whole_tiles = detail::tile_order<HopperMainLoop<T>>(op.m, n_tiles).count();
    const SwappedTiles forced = swapped_tiles().load(std::memory_order_relaxed);
    const bool few_rows = detail::few_rows_one_range(whole, op.m, kFewRows, whole.whole_tiles, device.sm_count);
    SwappedTiles tiles = forced;
    if (tiles == SwappedTiles::automatic)
      tiles = few_rows ? choose_few_row_tiles(n_tiles, device.sm_count)
                       : choose_swapped_tiles(op.m, n_tiles, device.sm_count);
    if (few_rows && tiles == SwappedTiles::never)
      return detail::launch_sm90<T, HopperDeepMainLoop<T>, Epi>(op, params, n_tiles, whole, device, stream);
    if (tiles == SwappedTiles::rows72)
      return detail::launch_sm90_swapped<T, HopperFewSwappedMainLoop<T>, Epi>(op, params, n_tiles, {}, device,
                                                                               stream);
    if (tiles == SwappedTiles::wide72)
      return detail::launch_sm90_wide_swapped<T, HopperFewWideSwappedMainLoop<T>, Epi>(op, params, n_tiles, device,
                                                                                        stream);
    if (tiles == SwappedTiles::rows160)
      return detail::launch_sm90_swapped<T, HopperSwappedMainLoop<T>, Epi>(op, params, n_tiles, {}, device, stream);
    if (tiles == SwappedTiles::rows232)
      return detail::launch_sm90_swapped<T, HopperTallSwappedMainLoop<T>, Epi>(op, params, n_tiles, {}, device,
                                                                                stream);
    return detail::launch_sm90<T, HopperMainLoop<T>, Epi>(op, params, n_tiles, whole, device, stream);
  }
  if (path == GemmPath::hopper)
    return {Errc::unsupported_device, "the Hopper GEMM path needs an sm_90a build on a compute capability 9.0 GPU"};
  const int sm_count = device.sm_count;
  if (select_tile(op.m, n_tiles, sm_count) == TileKind::small)
    return detail::launch_with_shape<T, TileSmall, Epi>(op, params, n_tiles, stream);
  return detail::launch_with_shape<T, TileLarge, Epi>(op, params, n_tiles, stream);
}

}  // namespace fusekit::gemm
