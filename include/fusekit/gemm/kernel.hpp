// fusekit/gemm/kernel.hpp: a GEMM kernel = main loop + epilogue, and the host launcher that
// picks the main loop (Hopper's where the GPU and the build have it, else the portable one)
// and the tile shape. Callers validate arguments first (validate.hpp); this file trusts them.
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/kernel_sm90.hpp"
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

// Largest grid dimension y (N-tiles) and x (M-tiles) the launcher accepts.
inline constexpr std::int64_t kMaxNTiles = 65535;
inline constexpr std::int64_t kMaxMTiles = 0x7fffffff;

enum class GemmPath : std::uint8_t { automatic, portable, hopper };

// 128 x 256 CTA tiles (two epilogue N-tiles), 3 stages of 64-deep k-slices: 144 KB of ring plus
// 68 KB of fp32 staging for the two consumers' epilogues.
template <class T> using HopperMainLoop = MainLoopSm90<T, 2, 3>;
// Calls of at most kFewRows rows with at most one tile per SM (70 tokens: qkv_proj's 84, fc1's
// 112) stream the weight from HBM: the same tiles with 72-row A stages (41 KB instead of 48) and
// the staging tiles in the drained ring fit 5 stages instead of 3.
inline constexpr std::int64_t kFewRows = 72;
template <class T> using HopperDeepMainLoop = MainLoopSm90<T, 2, 5, true, kFewRows>;
// 128 x 128 tiles, 4 stages (128 KB of ring): for long, narrow weights (below).
template <class T> using HopperNarrowMainLoop = MainLoopSm90<T, 1, 4>;
// The same tiles and instructions (the same bits) with 72-row A stages and the staging tiles in
// the ring: 9 stages instead of 4, for narrow calls of at most kFewRows rows where every CTA runs
// one k-range (70 tokens: 126 CTAs, one K third each).
template <class T> using HopperNarrowDeepMainLoop = MainLoopSm90<T, 1, 9, true, kFewRows>;

// Narrow tiles when 256-wide tiles would leave more than half the SMs without a tile column and K
// is long (>= 6144: H3's out_proj and fc2, 21 columns, K = 7168 and 14336): twice the CTAs stream
// the weight at small M (42 instead of 21 at 70 tokens). N and K decide, never M, so a row's
// result does not depend on how many rows share the call; the K floor keeps H3's q, k and v
// thirds (K = 5376) on the same tiles as the fused qkv projection.
constexpr bool narrow_hopper_tiles(std::int64_t n_tiles, std::int64_t k, int sm_count) {
  return k >= 6144 && 2 * ((n_tiles + 1) / 2) <= sm_count;
}

// Process-wide choice of main loop. `automatic` (the default) takes the Hopper one wherever it
// can run; tests and benchmarks set `portable` to compare both paths on one GPU.
inline std::atomic<GemmPath>& gemm_path() {
  static std::atomic<GemmPath> path{GemmPath::automatic};
  return path;
}

namespace detail {
// The Hopper kernel needs compute capability 9.0 and sm_90a machine code in this binary (a
// build for other targets compiles it to a trap): the kernel's binary version tells.
template <class T, class Epi> bool hopper_available(const DeviceInfo& device) {
  if (device.major != 9 || device.minor != 0) return false;
  static const bool built = [] {
    cudaFuncAttributes attr{};
    return cudaFuncGetAttributes(&attr, &gemm_kernel_sm90<HopperMainLoop<T>, Epi>) == cudaSuccess &&
           attr.binaryVersion == 90;
  }();
  return built;
}
}  // namespace detail

// Launches Epi on Y = A * W^T. op.m > 0; the device picks the main loop and the tile shape.
template <class T, class Epi>
Status launch_gemm(const GemmOperands<T>& op, const typename Epi::Params& params, const DeviceInfo& device,
                   cudaStream_t stream) {
  const std::int64_t n_tiles = Epi::n_tiles(params, op.n, kTileN);
  const GemmPath path = gemm_path().load(std::memory_order_relaxed);
  if (path != GemmPath::portable && detail::hopper_available<T, Epi>(device)) {
    if (narrow_hopper_tiles(n_tiles, op.k, device.sm_count)) {
      using Narrow = HopperNarrowMainLoop<T>;
      SplitPlan plan;
      FUSEKIT_TRY(detail::plan_k_segments<Narrow>(op.m, n_tiles, op.k, device, stream, plan));
      const std::int64_t tiles = detail::tile_order<Narrow>(op.m, n_tiles).count();
      if (detail::few_rows_one_range(plan, op.m, kFewRows, tiles, device.sm_count))
        return detail::launch_sm90<T, HopperNarrowDeepMainLoop<T>, Epi>(op, params, n_tiles, plan, device, stream);
      return detail::launch_sm90<T, Narrow, Epi>(op, params, n_tiles, plan, device, stream);
    }
    SplitPlan whole;
    whole.whole_tiles = detail::tile_order<HopperMainLoop<T>>(op.m, n_tiles).count();
    if (detail::few_rows_one_range(whole, op.m, kFewRows, whole.whole_tiles, device.sm_count))
      return detail::launch_sm90<T, HopperDeepMainLoop<T>, Epi>(op, params, n_tiles, whole, device, stream);
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
