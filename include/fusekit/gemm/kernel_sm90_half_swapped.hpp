// fusekit/gemm/kernel_sm90_half_swapped.hpp: the kernel on HalfSwappedMainLoopSm90. Work item i
// is W rows [64 h, 64 h + 64), h = i / m_tiles (half h % 2 of the epilogue's N-tile h / 2), times
// token tile i % m_tiles over the whole K, its K segments folded in the registers; the consumer warpgroup
// then runs the epilogue on its 64 columns. Only for epilogues whose columns are independent
// (Epilogue::kColumnLocal): a CTA holds half an N-tile. Persistent: CTA b takes items b,
// b + grid, ...
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/kernel_sm90.hpp"
#include "fusekit/gemm/kernel_sm90_swapped.hpp"
#include "fusekit/gemm/mainloop_sm90_half_swapped.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fusekit::gemm {

template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90_half_swapped(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                                  GemmExtent extent, KSegments segments, typename Epi::Params params) {
#ifdef FUSEKIT_SM90A
  auto& s = aligned_shared_storage<typename MainLoop::SharedStorage>();
  if (threadIdx.x == 0) MainLoop::init(s);
  __syncthreads();

  const std::int64_t m_tiles = (extent.m + MainLoop::BM - 1) / MainLoop::BM;
  const std::int64_t items = MainLoop::items(extent.m, extent.n);
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  // Item i's token tile and W rows [64 h, 64 h + 64) (h = i / m_tiles, the last run cut at n), as
  // one WeightRows half (count[1] = 0): a column-local epilogue's W rows are contiguous.
  auto item = [&](std::int64_t i, std::int64_t& m_tile) {
    m_tile = i % m_tiles;
    WeightRows one{};
    one.first[0] = i / m_tiles * MainLoop::kRows;
    one.count[0] = static_cast<int>(extent.n - one.first[0] < MainLoop::kRows ? extent.n - one.first[0] : MainLoop::kRows);
    return one;
  };
  const int a_rows = MainLoop::box_rows(extent.m);  // the launcher's token boxes
  RingPosition pos;
  if (threadIdx.x < 128) {
    if (threadIdx.x == 0) {
      ptx::prefetch_tensor_map(&a_map);
      ptx::prefetch_tensor_map(&w_map);
      for (std::int64_t i = blockIdx.x; i < items; i += gridDim.x) {
        std::int64_t m_tile;
        const WeightRows wr = item(i, m_tile);
        MainLoop::produce(s, pos, &a_map, &w_map, 0, k_blocks, m_tile * MainLoop::BM, wr.first[0], a_rows);
      }
    }
  } else {
    for (std::int64_t i = blockIdx.x; i < items; i += gridDim.x) {
      std::int64_t m_tile;
      const WeightRows wr = item(i, m_tile);
      typename MainLoop::Accumulators acc, running;
      for (int seg = 0; seg < segments.count; ++seg) {
        int begin, end;
        segments.range(seg, k_blocks, begin, end);
        MainLoop::consume(s, pos, begin, end, acc);
        fold_segment(running.v, acc.v, seg == 0);
      }
      MainLoop::stage(s, running);
      const std::int64_t row0 = m_tile * MainLoop::BM;
      AccTile tile = AccTile::staged(s.staging, MainLoop::kTileLd, row0, extent.m - row0, MainLoop::BM,
                                     MainLoop::kRows, wr, threadIdx.x - 128, 128, 1);
      tile.sync();               // the whole fragment staged
      Epi::apply(params, tile);  // ends with the barrier: the staging tile is free again
    }
  }
#else
  ptx::built_without_sm90a();
#endif
}

namespace detail {

// Every 64 W rows by every token tile, whole, `segments` folded in
// the registers; one CTA an SM at most. A plain launch, whatever grid_overlap() says: overlapping
// the kernel before it (its CTAs taking the SMs this grid leaves idle early) made out_proj's GEMM
// at 70 tokens 4% slower and fc2's 7% (H100, RESULTS.md, fifty-first session), as it did qkv_proj's
// 84 whole tiles (kernel_sm90.hpp).
template <class T, class MainLoop, class Epi>
Status launch_sm90_half_swapped(const GemmOperands<T>& op, const typename Epi::Params& params, KSegments segments,
                                const DeviceInfo& device, cudaStream_t stream) {
  static_assert(Epi::kColumnLocal, "a CTA holds half an N-tile: the epilogue's columns must be independent");
  if ((op.k + MainLoop::BK - 1) / MainLoop::BK < segments.count)
    return {Errc::bad_argument, "half-swapped tiles need a k-slice in every K segment"};
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::box_rows(op.m)));
  // Streamed once: fetched 128 bytes a miss (launch_sm90's reason).
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kRows,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_128B));
  auto* kernel = &gemm_kernel_sm90_half_swapped<MainLoop, Epi>;
  LaunchShape shape;
  FUSEKIT_TRY(persistent_shape<MainLoop>(kernel, MainLoop::items(op.m, op.n), device, shape));
  return launch_kernel(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k}, segments, params);
}

}  // namespace detail
}  // namespace fusekit::gemm
