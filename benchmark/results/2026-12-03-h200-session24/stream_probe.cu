// stream_probe: how fast can a ring of bulk tensor copies bring a 70-token GEMM's operands into
// the SMs, with no math at all? One producer thread per CTA streams W slabs (and the token tile)
// through a ring of mbarrier-guarded stages; consumer warps only wait for each stage and hand it
// back. Each row of the output is one ring shape (CTAs, W rows a CTA, tokens a stage, K segments,
// stages, multicast cluster, token copies, L2 cache hints), timed with events over 21 launches
// (median), rotating over `sets` copies of W so that each launch reads W from HBM.
//
// Why: fusekit's rings take in about 45-55 GB/s an SM at 70 tokens against cuBLASLt's 90
// (RESULTS.md, twenty-second and twenty-third sessions); this separates the memory system's
// limits from the kernels' own code.
//
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I include stream_probe.cu -o stream_probe
#include "fusekit/core/mbarrier.cuh"
#include "fusekit/gemm/ptx_sm90.hpp"
#include "fusekit/gemm/tensor_map.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

using fusekit::ptx::smem_addr;

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);   \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

struct Shape {
  const char* name;
  int k;             // 7168 (out_proj) or 14336 (fc2)
  int w_rows;        // W rows a CTA streams (64 or 128)
  int slabs;         // W slabs (5376 / w_rows)
  int tokens;        // token rows a stage (0: W only)
  int box_rows;      // token rows a copy; box j comes from CTA j % cluster
  int segments;      // CTAs along K per slab
  int stages;
  int cluster;       // CTAs that multicast their token boxes to each other
  int token_copies;  // clusters spread over this many copies of the tokens (fewer readers a line)
  int hints;         // 1: W evict_first, tokens evict_last
  int slice = 64;    // K elements a stage (64: 128-byte swizzle; 128 or 256: no swizzle)
  int arrive_warps = 8;  // consumer warps that hand a stage back (CUTLASS: one a warpgroup)
  int promotion = 256;   // W map's L2 promotion: 0, 128 or 256 bytes
  int contiguous = 0;    // 1: W read as one flat array, each CTA a contiguous share (1-D bulk copies)
};

struct Args {
  int k_blocks, w_rows, tokens, box_rows, segments, stages, token_copies, hints, slice, arrive_warps, contiguous;
  const unsigned char* w_flat;
  std::uint32_t w_bytes, a_bytes, box_bytes;
};

// The library's copies (fusekit/gemm/ptx_sm90.hpp), with or without an L2 policy.
__device__ __forceinline__ void tma_load(void* smem, const CUtensorMap* map, std::uint64_t* bar, int inner, int outer,
                                         std::uint64_t policy, bool hint) {
  if (hint)
    fusekit::gemm::ptx::tma_load_2d(smem, map, bar, inner, outer, policy);
  else
    fusekit::gemm::ptx::tma_load_2d(smem, map, bar, inner, outer);
}
__device__ __forceinline__ void tma_load_multicast(void* smem, const CUtensorMap* map, std::uint64_t* bar, int inner,
                                                   int outer, std::uint16_t mask, std::uint64_t policy, bool hint) {
  if (hint)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
        " [%0], [%1, {%4, %5}], [%2], %3, %6;\n" ::"r"(smem_addr(smem)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_addr(bar)), "h"(mask), "r"(inner), "r"(outer),
        "l"(policy)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(smem_addr(smem)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_addr(bar)), "h"(mask), "r"(inner), "r"(outer)
        : "memory");
}
// One arrival on the barrier at `bar`'s offset in CTA `rank` (release at CTA scope, as CUTLASS).
__device__ __forceinline__ void arrive_at(std::uint64_t* bar, unsigned rank) {
  asm volatile("{\n .reg .b32 r;\n mapa.shared::cluster.u32 r, %0, %1;\n mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(
                   smem_addr(bar)),
               "r"(rank)
               : "memory");
}
__device__ __forceinline__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

constexpr int kMaxStages = 32, kConsumerWarps = 8;

__global__ void __launch_bounds__(384, 1) stream(const __grid_constant__ CUtensorMap w_map,
                                                 const __grid_constant__ CUtensorMap a_map, Args args) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[kMaxStages], empty[kMaxStages];
  unsigned char* ring = smem_raw + (1024u - smem_addr(smem_raw) % 1024u) % 1024u;
  unsigned rank = 0, ranks = 1;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(ranks));
  if (threadIdx.x == 0) {
    for (int s = 0; s < args.stages; ++s) {
      fusekit::ptx::mbarrier_init(&full[s], 1);
      fusekit::ptx::mbarrier_init(&empty[s], args.arrive_warps * ranks);
    }
    fusekit::ptx::fence_barrier_init();
  }
  cluster_barrier();
  const int cluster_id = blockIdx.x / ranks;
  const int seg = cluster_id % args.segments, group = cluster_id / args.segments;
  const int slab = group * ranks + rank;
  const int kb_begin = seg * args.k_blocks / args.segments, kb_end = (seg + 1) * args.k_blocks / args.segments;
  const int token_row0 = (cluster_id % args.token_copies) * args.tokens;
  const std::uint32_t stage_bytes = args.w_bytes + args.a_bytes;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    const std::uint64_t evict_first = fusekit::gemm::ptx::l2_evict_first(),
                        evict_last = fusekit::gemm::ptx::l2_evict_last();
    int stage = 0;
    unsigned phase = 0;
    const int boxes = args.tokens / args.box_rows;
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      fusekit::ptx::mbarrier_wait(&empty[stage], phase ^ 1u);
      fusekit::ptx::mbarrier_arrive_expect_tx(&full[stage], stage_bytes);
      unsigned char* st = ring + stage * stage_bytes;
      for (int j = rank; j < boxes; j += ranks) {
        void* dst = st + args.w_bytes + j * args.box_bytes;
        const int row = token_row0 + j * args.box_rows;
        if (ranks == 1)
          tma_load(dst, &a_map, &full[stage], kb * args.slice, row, evict_last, args.hints);
        else
          tma_load_multicast(dst, &a_map, &full[stage], kb * args.slice, row, std::uint16_t((1u << ranks) - 1),
                             evict_last, args.hints);
      }
      if (args.contiguous)
        fusekit::ptx::bulk_copy_global_to_shared(
            st, args.w_flat + (std::size_t(slab) * args.k_blocks + kb) * args.w_bytes, args.w_bytes, &full[stage]);
      else
        tma_load(st, &w_map, &full[stage], kb * args.slice, slab * args.w_rows, evict_first, args.hints);
      if (++stage == args.stages) stage = 0, phase ^= 1u;
    }
  } else if (warp >= 4 && (args.arrive_warps == kConsumerWarps || warp % 4 == 0)) {
    int stage = 0;
    unsigned phase = 0;
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      fusekit::ptx::mbarrier_wait(&full[stage], phase);
      __syncwarp();
      if (lane < int(ranks)) arrive_at(&empty[stage], lane);
      if (++stage == args.stages) stage = 0, phase ^= 1u;
    }
  }
  cluster_barrier();  // no CTA leaves while a peer may still copy into it or arrive on its barriers
}

static CUtensorMap make_map(const void* base, int rows, int cols, int box_rows, int slice, int promotion = 256) {
  CUtensorMap map;
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!fusekit::gemm::detail::tensor_map_encoder(encode)) std::exit(2);
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {cuuint32_t(slice), cuuint32_t(box_rows)};
  const cuuint32_t unit[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                            unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            slice == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                            promotion == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                            : promotion == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                               : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed (%d) rows %d cols %d box %d x %d\n", int(r), rows, cols, box_rows, slice);
    std::exit(3);
  }
  return map;
}

int main(int argc, char** argv) {
  const int sets = argc > 1 ? std::atoi(argv[1]) : 3;
  const int batch = argc > 2 ? std::atoi(argv[2]) : 20;
  const int only = argc > 3 ? std::atoi(argv[3]) : -1;  // one shape's index (ncu), or -1 for all
  const int reps = argc > 4 ? std::atoi(argv[4]) : 12;
  constexpr int kN = 5376, kMaxK = 14336, kMaxTokenRows = 84 * 96;
  std::vector<void*> w(sets);
  for (auto& p : w) {
    CHECK(cudaMalloc(&p, std::size_t(kN) * kMaxK * 2));
    CHECK(cudaMemset(p, 0x3c, std::size_t(kN) * kMaxK * 2));
  }
  void* a = nullptr;
  CHECK(cudaMalloc(&a, std::size_t(kMaxTokenRows) * kMaxK * 2));
  CHECK(cudaMemset(a, 0x3d, std::size_t(kMaxTokenRows) * kMaxK * 2));
  CHECK(cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 226 * 1024));
  CHECK(cudaFuncSetAttribute(stream, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));

  const Shape shapes[] = {
      // name                          k     wr  slabs tok box seg st cl copies hints slice
      {"thin W only 11 st", 7168, 64, 84, 0, 8, 1, 11, 1, 1, 0},
      {"thin W only 24 st", 7168, 64, 84, 0, 8, 1, 24, 1, 1, 0},
      {"thin W only 24 st hint", 7168, 64, 84, 0, 8, 1, 24, 1, 1, 1},
      {"thin W only 256-slice 6 st", 7168, 64, 84, 0, 8, 1, 6, 1, 1, 0, 256},
      {"thin +80 tok 11 st", 7168, 64, 84, 80, 80, 1, 11, 1, 1, 0},
      {"thin +80 tok 11 st hint", 7168, 64, 84, 80, 80, 1, 11, 1, 1, 1},
      {"thin +80 tok 8-row boxes", 7168, 64, 84, 80, 8, 1, 11, 1, 1, 0},
      {"thin +80 tok 4 copies", 7168, 64, 84, 80, 80, 1, 11, 1, 4, 0},
      {"thin +80 tok 21 copies", 7168, 64, 84, 80, 80, 1, 11, 1, 21, 0},
      {"thin +80 tok c2 mcast", 7168, 64, 84, 80, 40, 1, 11, 2, 1, 0},
      {"thin +80 tok c2 mcast hint", 7168, 64, 84, 80, 40, 1, 11, 2, 1, 1},
      {"thin +96 tok c4 mcast", 7168, 64, 84, 96, 24, 1, 10, 4, 1, 0},
      {"thin +96 tok c4 mcast hint", 7168, 64, 84, 96, 24, 1, 10, 4, 1, 1},
      {"narrow W only 9 st", 7168, 128, 42, 0, 8, 3, 9, 1, 1, 0},
      {"narrow +72 tok 9 st", 7168, 128, 42, 72, 72, 3, 9, 1, 1, 0},
      {"narrow +72 tok 9 st hint", 7168, 128, 42, 72, 72, 3, 9, 1, 1, 1},
      {"narrow +72 tok c2 mcast", 7168, 128, 42, 80, 40, 3, 8, 2, 1, 0},
      {"narrow W only 128r whole K 9 st (42 CTAs)", 7168, 128, 42, 0, 8, 1, 9, 1, 1, 0},
      {"W only 112 CTAs 48r 11 st", 7168, 48, 112, 0, 8, 1, 11, 1, 1, 0},
      {"W only 168 CTAs 32r 11 st", 7168, 32, 168, 0, 8, 1, 11, 1, 1, 0},
      {"W only 126 CTAs 128r 3 seg 4 st", 7168, 128, 42, 0, 8, 3, 4, 1, 1, 0},
      {"W only flat 1-D 16 KB chunks 126 CTAs 9 st", 7168, 128, 42, 0, 8, 3, 9, 1, 1, 0, 64, 8, 256, 1},
      {"W only flat 1-D 8 KB chunks 84 CTAs 11 st", 7168, 64, 84, 0, 8, 1, 11, 1, 1, 0, 64, 8, 256, 1},
      {"narrow W only 9 st promo 128", 7168, 128, 42, 0, 8, 3, 9, 1, 1, 0, 64, 8, 128},
      {"narrow W only 9 st promo none", 7168, 128, 42, 0, 8, 3, 9, 1, 1, 0, 64, 8, 0},
      {"thin +80 tok 2 arrive warps", 7168, 64, 84, 80, 80, 1, 11, 1, 1, 0, 64, 2},
      {"thin +96 tok c4 mcast 2 arrive warps", 7168, 64, 84, 96, 24, 1, 10, 4, 1, 0, 64, 2},
      {"thin +80 tok c2 mcast 2 arrive warps", 7168, 64, 84, 80, 40, 1, 11, 2, 1, 0, 64, 2},
      {"narrow +72 tok 9 st 2 arrive warps hint", 7168, 128, 42, 72, 72, 3, 9, 1, 1, 1, 64, 2},
      {"fc2 thin W only 24 st", 14336, 64, 84, 0, 8, 1, 24, 1, 1, 0},
      {"fc2 thin +80 tok 11 st", 14336, 64, 84, 80, 80, 1, 11, 1, 1, 0},
      {"fc2 thin +96 tok c4 mcast", 14336, 64, 84, 96, 24, 1, 10, 4, 1, 0},
      {"fc2 narrow +72 tok 9 st", 14336, 128, 42, 72, 72, 3, 9, 1, 1, 0},
  };
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::printf("%2s %-44s %5s %7s %9s %9s %9s %9s\n", "#", "shape", "CTAs", "us", "W TB/s", "L2 TB/s", "GB/s/SM", "KB flight");
  int index = -1;
  for (const Shape& s : shapes) {
    if (++index, only >= 0 && index != only) continue;
    Args args{};
    args.slice = s.slice;
    args.k_blocks = s.k / s.slice;
    args.w_rows = s.w_rows;
    args.tokens = s.tokens;
    args.box_rows = s.box_rows;
    args.segments = s.segments;
    args.stages = s.stages;
    args.token_copies = s.token_copies;
    args.hints = s.hints;
    args.arrive_warps = s.arrive_warps;
    args.contiguous = s.contiguous;
    args.w_bytes = s.w_rows * s.slice * 2;
    args.a_bytes = s.tokens * s.slice * 2;
    args.box_bytes = s.box_rows * s.slice * 2;
    const std::size_t smem = std::size_t(s.stages) * (args.w_bytes + args.a_bytes) + 1024;
    const int ctas = s.slabs * s.segments;
    std::vector<CUtensorMap> w_maps;
    for (void* p : w) w_maps.push_back(make_map(p, s.slabs * s.w_rows, s.k, s.w_rows, s.slice, s.promotion));
    const CUtensorMap a_map = make_map(a, kMaxTokenRows, s.k, s.box_rows, s.slice);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(ctas);
    cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = s.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    // Each sample: `batch` launches back to back between two events (as a graph replay runs
    // them), so the launch latency is paid once; batch 1 shows one launch alone.
    std::vector<float> times;
    for (int rep = 0; rep < reps; ++rep) {
      CHECK(cudaEventRecord(e0));
      for (int b = 0; b < batch; ++b) {
        args.w_flat = static_cast<const unsigned char*>(w[(rep * batch + b) % sets]);
        CHECK(cudaLaunchKernelEx(&cfg, stream, w_maps[(rep * batch + b) % sets], a_map, args));
      }
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep >= 2 || reps <= 2) times.push_back(ms * 1000.f / batch);
    }
    std::sort(times.begin(), times.end());
    const double us = times[times.size() / 2];
    const double w_bytes = double(s.slabs) * s.w_rows * s.k * 2;
    const double l2_bytes = double(ctas) * (double(args.w_bytes) + double(args.a_bytes) / s.cluster) * (args.k_blocks / s.segments);
    const double smem_in = double(ctas) * (args.w_bytes + args.a_bytes) * (args.k_blocks / s.segments);
    std::printf("%2d %-44s %5d %7.2f %9.2f %9.2f %9.1f %9.0f\n", index, s.name, ctas, us, w_bytes / us * 1e-6, l2_bytes / us * 1e-6,
                smem_in / ctas / us * 1e-3, (smem - 1024) / 1024.0);
  }
  return 0;
}
