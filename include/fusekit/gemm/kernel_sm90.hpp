// fusekit/gemm/kernel_sm90.hpp: the Hopper GEMM kernel = MainLoopSm90 + an Epilogue, warp-
// specialized and persistent: warpgroup 0 gives up registers and one of its threads streams
// tiles through the ring; warpgroups 1 and 2 take the registers, multiply, and run the
// epilogue on their own rows (named barriers, so the producer is already loading the next
// tile's slices meanwhile). Long, narrow weights cut K into segments (split_k.hpp), summed in one
// CTA or across a cluster. Callers validate arguments first (validate.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/gemm/mainloop_sm90.hpp"
#include "fusekit/gemm/split_k.hpp"
#include "fusekit/gemm/tensor_map.hpp"
#include "fusekit/gemm/tile_scheduler.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>

namespace fusekit::gemm {

struct GemmExtent {
  std::int64_t m = 0, n = 0, k = 0;
};

// Sum selects where a tile's K segments meet (split_k.hpp): in one CTA (every tile shape), or
// across a cluster (narrow tiles). Two kernels rather than one with both paths: the cluster
// exchange compiled into the one-CTA kernel slowed its main loop by 4-6% (H200, 2026-11-30).
template <class MainLoop, class Epi, KSum Sum = KSum::one_cta>
__global__ void __launch_bounds__(MainLoop::kThreads, 1)
    gemm_kernel_sm90(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
                     GemmExtent extent, std::int64_t sub_tiles, TileOrder order, typename Epi::Params params,
                     KSegments segments) {
#ifdef FUSEKIT_SM90A
  using Storage = typename MainLoop::SharedStorage;
  extern __shared__ unsigned char smem_raw[];
  auto& s = *reinterpret_cast<Storage*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  // Only narrow tiles cut K (their staging tile holds a consumer's whole accumulator). In a
  // cluster, the CTAs share every tile, CTA `rank` computing K segment `rank`.
  constexpr bool kSegmented = MainLoop::kNSub == 1, kCluster = Sum == KSum::cluster;
  static_assert(kSegmented || !kCluster, "only narrow tiles sum K segments across a cluster");
  ClusterSplitK<MainLoop::kConsumers> split;
  if constexpr (kCluster) {
    split.rank = ptx::cluster_rank();
    split.size = ptx::cluster_size();
  }
  if (threadIdx.x == 0) {
    MainLoop::init(s);
    if constexpr (kCluster) {
      split.init(s.split, split.size);
      ptx::fence_barrier_init();
    }
  }
  if constexpr (kCluster)
    ptx::cluster_sync_all();  // partners' barriers are initialised before the first remote arrival
  else
    __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + MainLoop::BK - 1) / MainLoop::BK);
  int kb_begin = 0, kb_end = k_blocks;  // the slices this CTA loads for each tile
  if constexpr (kCluster) segments.range(int(split.rank), k_blocks, kb_begin, kb_end);
  const std::int64_t first_tile = blockIdx.x / split.size, tile_step = gridDim.x / split.size;
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
      for (std::int64_t t = first_tile; t < order.count(); t += tile_step) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        WeightRows wr[MainLoop::kNSub];
        sources(n_tile, wr);
        MainLoop::produce(s, pos, &a_map, &w_map, kb_begin, kb_end, m_tile * MainLoop::BM, wr);
      }
    }
  } else {
    ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    for (std::int64_t t = first_tile; t < order.count(); t += tile_step) {
      std::int64_t m_tile, n_tile;
      order.coords(t, m_tile, n_tile);
      WeightRows wr[MainLoop::kNSub];
      sources(n_tile, wr);
      typename MainLoop::Accumulators acc;
      if constexpr (kSegmented && !kCluster) {
        if (segments.count > 1) {
          const std::int64_t row0 = m_tile * MainLoop::BM + cw * MainLoop::kWgRows;
          const bool rows_here = row0 < extent.m;  // uniform over the warpgroup
          // One CTA, K in segments: each segment's sum is folded into the staging tile.
          for (int seg = 0; seg < segments.count; ++seg) {
            int begin, end;
            segments.range(seg, k_blocks, begin, end);
            MainLoop::consume(s, pos, begin, end, cw, acc);
            if (!rows_here || seg + 1 == segments.count) continue;
            if (seg == 0)
              MainLoop::stage(s, acc, cw, 0, extent.m, row0, wr[0]);
            else
              MainLoop::template stage<Fold::add>(s, acc, cw, 0, extent.m, row0, wr[0]);
          }
          if (!rows_here) continue;
          AccTile tile = MainLoop::template stage<Fold::add>(s, acc, cw, 0, extent.m, row0, wr[0]);
          Epi::apply(params, tile);
          continue;
        }
      }
      MainLoop::consume(s, pos, kb_begin, kb_end, cw, acc);
      const std::int64_t row0 = m_tile * MainLoop::BM + cw * MainLoop::kWgRows;
      if (row0 >= extent.m) continue;  // uniform over the warpgroup
#pragma unroll
      for (int sub = 0; sub < MainLoop::kNSub; ++sub) {
        if (n_tile * MainLoop::kNSub + sub >= sub_tiles) break;
        if constexpr (kCluster) split.wait_freed(s.split, cw);  // partners are done with the last partial
        AccTile tile = MainLoop::stage(s, acc, cw, sub, extent.m, row0, wr[sub]);
        if constexpr (kCluster) {
          split.reduce(s.split, cw, tile);  // this CTA's slice of rows, summed in rank order
          if (tile.rows == 0) continue;
        }
        Epi::apply(params, tile);  // ends with the group's barrier: the staging tile is free again
      }
    }
  }
  // No CTA leaves while a partner may still read its shared memory (every thread of the cluster).
  if constexpr (kCluster) ptx::cluster_sync_all();
#else
  __trap();  // built without sm_90a: the launcher only picks this kernel where it was compiled
#endif
}

namespace detail {

template <class T> constexpr CUtensorMapDataType tensor_map_type() {
  return std::is_same_v<T, bf16_t> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

// Clusters of s CTAs (s = 2..kMaxKSegments) of `kernel` the GPU runs at once: fewer than
// sm_count / s where the GPCs' sizes do not divide evenly. Asked once per kernel and process,
// like `hopper_available`: a process that drives GPUs of different models would need it per device.
template <class Kernel>
const int (&resident_clusters(Kernel* kernel, const LaunchShape& shape, int sm_count))[kMaxKSegments + 1] {
  static int fits[kMaxKSegments + 1] = {};
  static std::once_flag once;
  std::call_once(once, [&] {
    // The occupancy query needs the kernel's shared-memory opt-in; a failure leaves fits at 0.
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.smem));
    for (int s = 2; s <= kMaxKSegments; ++s) {
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(static_cast<unsigned>(s * (sm_count / s)));
      config.blockDim = shape.block;
      config.dynamicSmemBytes = shape.smem;
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = static_cast<unsigned>(s);
      cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
      config.attrs = &cluster;
      config.numAttrs = 1;
      if (cudaOccupancyMaxActiveClusters(&fits[s], kernel, &config) != cudaSuccess) {
        fits[s] = 0;  // no clusters of this size: K is not cut that way
        (void)cudaGetLastError();
      }
    }
  });
  return fits;
}

// n_tiles: the epilogue's 128-column N-tiles (a CTA tile holds MainLoop::kNSub of them).
template <class T, class MainLoop, class Epi>
Status launch_sm90(const GemmOperands<T>& op, const typename Epi::Params& params, std::int64_t n_tiles,
                   const DeviceInfo& device, cudaStream_t stream) {
  CUtensorMap a_map, w_map;
  FUSEKIT_TRY(make_tensor_map_sw128(a_map, op.a, tensor_map_type<T>(), op.m, op.k, op.lda, MainLoop::BM));
  FUSEKIT_TRY(make_tensor_map_sw128(w_map, op.w, tensor_map_type<T>(), op.n, op.k, op.ldw, MainLoop::kSubN / 2));
  const TileOrder order{(op.m + MainLoop::BM - 1) / MainLoop::BM, (n_tiles + MainLoop::kNSub - 1) / MainLoop::kNSub};
  auto* kernel = &gemm_kernel_sm90<MainLoop, Epi, KSum::one_cta>;
  LaunchShape shape;
  shape.block = dim3(MainLoop::kThreads);
  shape.smem = MainLoop::kSmemBytes;
  std::int64_t ctas = device.sm_count;  // persistent: at most one CTA per SM
  KSegments segments;
  if constexpr (MainLoop::kNSub == 1) {
    auto* cluster_kernel = &gemm_kernel_sm90<MainLoop, Epi, KSum::cluster>;
    const int k_blocks = static_cast<int>((op.k + MainLoop::BK - 1) / MainLoop::BK);
    const int(&fits)[kMaxKSegments + 1] = resident_clusters(cluster_kernel, shape, device.sm_count);
    const SplitKWay way = split_k_way().load(std::memory_order_relaxed);
    if (way != SplitKWay::unsplit) segments.count = choose_k_segments(order.n_tiles, k_blocks, device.sm_count, fits);
    const bool cluster = segments.count > 1 && (way == SplitKWay::automatic
                                                    ? cluster_split(order.count(), segments.count,
                                                                    fits[segments.count], device.sm_count)
                                                    : way == SplitKWay::cluster);
    if (cluster) {
      kernel = cluster_kernel;
      shape.cluster = static_cast<unsigned>(segments.count);
      ctas = std::int64_t(fits[segments.count]) * segments.count;
    }
  }
  FUSEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(MainLoop::kSmemBytes)));
  const std::int64_t tiles = order.count() * shape.cluster;
  shape.grid = dim3(static_cast<unsigned>(tiles < ctas ? tiles : ctas));
  return launch_kernel(kernel, shape, stream, a_map, w_map, GemmExtent{op.m, op.n, op.k}, n_tiles, order,
                       params, segments);
}

}  // namespace detail
}  // namespace fusekit::gemm
