// fusekit/gemm/kernel.hpp: a GEMM kernel = main loop + epilogue, and the host launcher that
// picks the tile shape. Callers validate arguments first (validate.hpp); this file trusts them.
#pragma once

#include "fusekit/core/status.hpp"
#include "fusekit/gemm/mainloop_sm80.hpp"
#include "fusekit/gemm/tile_shape.hpp"

#include <cuda_runtime_api.h>

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

// Launches Epi on Y = A * W^T. op.m > 0; sm_count picks the tile shape (tile_shape.hpp).
template <class T, class Epi>
Status launch_gemm(const GemmOperands<T>& op, const typename Epi::Params& params, int sm_count, cudaStream_t stream) {
  const std::int64_t n_tiles = Epi::n_tiles(params, op.n, kTileN);
  if (select_tile(op.m, n_tiles, sm_count) == TileKind::small)
    return detail::launch_with_shape<T, TileSmall, Epi>(op, params, n_tiles, stream);
  return detail::launch_with_shape<T, TileLarge, Epi>(op, params, n_tiles, stream);
}

}  // namespace fusekit::gemm
