// fusekit/gemm/kernel_sm90_swapped.hpp: the Hopper GEMM kernel on SwappedMainLoopSm90 (tokens as
// the wgmma's N), warp-specialized and persistent like gemm_kernel_sm90: warpgroup 0's producer
// streams tiles through the ring while warpgroups 1 and 2 multiply, one W half each, and then
// run the epilogue together on the tile's token chunks, staged transposed (the producer is
// already loading the next tile's slices meanwhile). No light tiles and no split tiles: every
// tile runs whole, its K segments (long, narrow weights) folded in the consumers' registers. The
// launcher takes this kernel where the token count fits its tile height better (kernel.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/kernel_sm90.hpp"
#include "fusekit/gemm/mainloop_sm90_swapped.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fusekit::gemm {

// CTA b takes tiles b, b + grid, ... of `order` (tile_scheduler.hpp: bands of N-tiles, every
// token tile of a band before the next); the producer walks the same tiles.
template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90_swapped(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                             GemmExtent extent, TileOrder order, KSegments segments, typename Epi::Params params) {
#ifdef FUSEKIT_SM90A
  using Storage = typename MainLoop::SharedStorage;
  extern __shared__ unsigned char smem_raw[];
  // Aligned through the shared array, so the epilogue's tile accesses stay LDS/STS (kernel_sm90.hpp).
  const unsigned misalign = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw)) % 1024u;
  auto& s = *reinterpret_cast<Storage*>(smem_raw + (1024u - misalign) % 1024u);
  if (threadIdx.x == 0) MainLoop::init(s);
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  const std::int64_t tiles = order.count();
  RingPosition pos;
  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensor_map(&a_map);
      ptx::prefetch_tensor_map(&w_map);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        const WeightRows wr = Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile);
        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
      }
    }
  } else {
    ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      std::int64_t m_tile, n_tile;
      order.coords(t, m_tile, n_tile);
      typename MainLoop::Accumulators acc, running;  // running: the fold of the segments so far
      if constexpr (MainLoop::kFoldsSegments) {
        // K in one segment has its own loop: no running sum stays live through its wgmmas.
        if (segments.count == 1) {
          MainLoop::consume(s, pos, 0, k_blocks, cw, acc);
          MainLoop::fold(running, acc, true);
        } else {
          for (int seg = 0; seg < segments.count; ++seg) {
            int begin, end;
            segments.range(seg, k_blocks, begin, end);
            MainLoop::consume(s, pos, begin, end, cw, acc);
            MainLoop::fold(running, acc, seg == 0);
          }
        }
      } else {
        MainLoop::consume(s, pos, 0, k_blocks, cw, acc);  // the launcher gives these tiles one segment
      }
      const WeightRows wr = Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile);
#pragma unroll 1
      for (int chunk = 0; chunk < MainLoop::kChunks; ++chunk) {  // one call site of the epilogue
        const std::int64_t row0 = m_tile * MainLoop::BM + chunk * MainLoop::kChunkRows;
        if (row0 >= extent.m) break;
        MainLoop::stage(s, MainLoop::kFoldsSegments ? running : acc, cw, chunk);
        asm volatile("bar.sync 3, 256;\n" ::: "memory");  // both W halves staged
        const int chunk_rows = MainLoop::BM - chunk * MainLoop::kChunkRows < MainLoop::kChunkRows
                                   ? MainLoop::BM - chunk * MainLoop::kChunkRows
                                   : MainLoop::kChunkRows;  // the tile's last chunk may be shorter
        AccTile tile = AccTile::staged(s.staging, MainLoop::kTileLd, row0, extent.m - row0, chunk_rows,
                                       MainLoop::kHalfRows, wr, threadIdx.x - 128, 256, 3);
        Epi::apply(params, tile);  // ends with the 256 threads' barrier: the staging tile is free again
      }
    }
  }
#else
  __trap();  // built without sm_90a: the launcher only picks this kernel where it was compiled
#endif
}

namespace detail {

// `segments`: split_k.hpp's K segments of long, narrow weights (count 1 for the others).
template <class T, class MainLoop, class Epi>
Status launch_sm90_swapped(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                           KSegments segments, const DeviceInfo& device, cudaStream_t stream) {
  if (!MainLoop::kFoldsSegments && segments.count > 1)
    return {Errc::bad_argument, "swapped tiles of more than 160 tokens cannot fold K segments"};
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::BM));
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kHalfRows));
  const TileOrder order{(op.m + MainLoop::BM - 1) / MainLoop::BM, n_tiles};
  auto* kernel = &gemm_kernel_sm90_swapped<MainLoop, Epi>;
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  LaunchShape shape;
  shape.block = dim3(MainLoop::kThreads);
  shape.smem = MainLoop::kSmemBytes;
  const std::int64_t tiles = order.count(), ctas = device.sm_count;  // persistent: one CTA per SM at most
  shape.grid = dim3(static_cast<unsigned>(tiles < ctas ? tiles : ctas));
  return launch_kernel(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k}, order, segments, params);
}

}  // namespace detail
}  // namespace fusekit::gemm
