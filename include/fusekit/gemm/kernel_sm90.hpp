// fusekit/gemm/kernel_sm90.hpp: the Hopper GEMM kernel = MainLoopSm90 + an Epilogue, warp-
// specialized and persistent: warpgroup 0 gives up registers and one of its threads streams
// tiles through the ring; warpgroups 1 and 2 take the registers, multiply, and run the
// epilogue on their own rows (named barriers, so the producer is already loading the next
// tile's slices meanwhile). Callers validate arguments first (validate.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/mainloop_sm90.hpp"
#include "fusekit/gemm/tensor_map.hpp"
#include "fusekit/gemm/tile_scheduler.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace fusekit::gemm {

struct GemmExtent {
  std::int64_t m = 0, n = 0, k = 0;
};

template <class MainLoop, class Epi>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                     GemmExtent extent, std::int64_t sub_tiles, TileOrder order, typename Epi::Params params) {
#ifdef FUSEKIT_SM90A
  using Storage = typename MainLoop::SharedStorage;
  extern __shared__ unsigned char smem_raw[];
  auto& s = *reinterpret_cast<Storage*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  if (threadIdx.x == 0) MainLoop::init(s);
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
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
      for (std::int64_t t = blockIdx.x; t < order.count(); t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        WeightRows wr[MainLoop::kNSub];
        sources(n_tile, wr);
        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
      }
    }
  } else {
    ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    for (std::int64_t t = blockIdx.x; t < order.count(); t += gridDim.x) {
      std::int64_t m_tile, n_tile;
      order.coords(t, m_tile, n_tile);
      WeightRows wr[MainLoop::kNSub];
      sources(n_tile, wr);
      typename MainLoop::Accumulators acc;
      MainLoop::consume(s, pos, k_blocks, cw, acc);
      const std::int64_t row0 = m_tile * MainLoop::BM + cw * MainLoop::kWgRows;
      if (row0 >= extent.m) continue;  // uniform over the warpgroup
#pragma unroll
      for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
        if (n_tile * MainLoop::kNSub + sub >= sub_tiles) break;
        AccTile tile = MainLoop::stage(s, acc, cw, sub, extent.m, row0, wr[sub]);
        Epi::apply(params, tile);  // ends with the group's barrier: the staging tile is free again
      }
    }
  }
#else
  __trap();  // built without sm_90a: the launcher only picks this kernel where it was compiled
#endif
}

namespace detail {

template <class T> constexpr CUtensorMapDataType tensor_map_type() {
  return std::is_same_v<T, bf16_t> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

// n_tiles: the epilogue's 128-column N-tiles (a CTA tile holds MainLoop::kNSub of them).
template <class T, class MainLoop, class Epi>
Status launch_sm90(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                   const DeviceInfo& device, cudaStream_t stream) {
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::BM));
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kSubN / 2));
  const TileOrder order{(op.m + MainLoop::BM - 1) / MainLoop::BM, (n_tiles + MainLoop::kNSub - 1) / MainLoop::kNSub};
  auto* kernel = &gemm_kernel_sm90<MainLoop, Epi>;
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  const std::int64_t grid = order.count() < device.sm_count ? order.count() : device.sm_count;
  kernel<<<static_cast<unsigned>(grid), MainLoop::kThreads, MainLoop::kSmemBytes, stream>>>(
      a_map, w_map, GemmExtent{op.m, op.n, op.k}, n_tiles, order, params);
  FUSEKIT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace detail
}  // namespace fusekit::gemm
