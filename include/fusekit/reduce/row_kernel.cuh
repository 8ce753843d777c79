// fusekit/reduce/row_kernel.cuh: the row kernels. Each CTA hands one row (or a slice of a row, in a
// cluster) to a RowAgent; all the work is in the agent and the policy.
#pragma once

#include "fusekit/reduce/row_agent.cuh"
#include "fusekit/reduce/staged_row_agent.cuh"

namespace fusekit::reduce {

// Rows per CTA = blockDim.y; threads per row = blockDim.x. Each RowAlignment is a kernel of its
// own: inside one kernel the general agent's registers set the aligned one's occupancy too (60
// registers a thread against 32; RESULTS.md, nineteenth session).
// kRows (CtaRows): helped, one row a CTA, blockDim.y == 2, the second group of threads its helpers;
// one_phase, rows of one phase (kPhaseRows, RowAgent); sharing, consecutive rows as independent's that
// share their parameter vectors.
template <class Policy, class TIn, class TOut, RowShape kShape, RowAlignment kAlign,
          CtaRows kRows = CtaRows::independent>
__global__ void __launch_bounds__(max_threads_of(kShape), (RowAgent<Policy, TIn, TOut, kShape, kAlign, kRows>::kMinCtasPerSm))
    row_kernel(const RowParams p, int vectors_per_row) {
  static_assert(kShape != RowShape::cluster);
  __shared__ ReducerStorage storage;
  wait_for_prior_grid();  // launched with PDL: no global access before the previous grid is done
  const std::int64_t b = blockIdx.x, per = blockDim.y, y = threadIdx.y;
  const std::int64_t row = kRows == CtaRows::helped      ? b
                           : kRows == CtaRows::one_phase ? kPhaseRows * per * (b / kPhaseRows) + b % kPhaseRows + kPhaseRows * y
                                                         : b * per + y;
  RowAgent<Policy, TIn, TOut, kShape, kAlign, kRows>(p, storage, row, 0, vectors_per_row).run();
}

// One row per cluster of gridDim.x / rows CTAs; each CTA holds vectors_per_cta vectors of it.
template <class Policy, class TIn, class TOut>
__global__ void __launch_bounds__(max_threads_of(RowShape::cluster), 1)
    row_cluster_kernel(const RowParams p, int vectors_per_cta) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ ReducerStorage storage;
  cg::cluster_group cluster = cg::this_cluster();
  prepare_cluster_exchange(cluster.num_blocks());
  wait_for_prior_grid();
  const unsigned rank = cluster.block_rank();
  const std::int64_t row = blockIdx.x / cluster.num_blocks();
  // Per call, as in row_kernel: every CTA of a cluster meets the reducer's exchanges on one path.
  using Aligned = RowAgent<Policy, TIn, TOut, RowShape::cluster, RowAlignment::aligned>;
  using General = RowAgent<Policy, TIn, TOut, RowShape::cluster, RowAlignment::general>;
  if (p.vectors_aligned) Aligned(p, storage, row, int(rank), vectors_per_cta).run();
  else General(p, storage, row, int(rank), vectors_per_cta).run();
#endif
}

// One row per CTA, or (kSliced) one row per cluster of layout.cluster CTAs, each staging a slice:
// one thread hands the copy engine the CTA's share, then the whole CTA reduces it
// (staged_traits.hpp says why).
// The row and sliced kernels cap a thread at 64 registers (two 512-thread CTAs an SM, or one sliced
// CTA of 1024), the narrow sliced kernel (takes_narrow_slices) at 48: five CTAs of 256 threads an SM.
template <class Policy, class TIn, class TOut, bool kSliced, bool kNarrow = false>
__global__ void __launch_bounds__(kNarrow ? kNarrowSlicedThreads : kSliced ? kMaxSlicedThreads : kMaxStagedThreads,
                                  kNarrow ? kNarrowSlicedCtasPerSm : kSliced ? 1 : 2)
    staged_row_kernel(const RowParams p, StagedLayout layout) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char stage[];
  __shared__ std::uint64_t landed, params_landed;
  __shared__ ReducerStorage storage;
  const int rank = kSliced ? int(cooperative_groups::this_cluster().block_rank()) : 0;
  const std::int64_t row = kSliced ? blockIdx.x / layout.cluster : blockIdx.x;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&landed, 1);
    ptx::mbarrier_init(&params_landed, 1);
    ptx::fence_barrier_init();
  }
  if constexpr (kSliced) prepare_cluster_exchange(unsigned(layout.cluster));
  wait_for_prior_grid();  // launched with PDL: the copy below reads what the previous grid wrote
  // The barrier is initialised before anyone uses it. (With the arrival before this barrier,
  // racecheck reported the initialisation, which nvcc issues on the warp's uniform datapath, as
  // racing with thread 0's arrival.)
  __syncthreads();
  const TIn* in_row = static_cast<const TIn*>(p.in) + row * p.in_stride;
  const StagedSlice<TIn> slice(in_row, p.cols, rank, kSliced ? layout.slice_vectors : 0, layout.cluster);
  if (threadIdx.x == 0) {
    stage_slice<TIn>(p, row, slice, stage, layout.residual_offset, &landed);
    if (layout.params_offset)
      stage_params<TIn, Policy::kTakesBias>(p, slice, stage + layout.params_offset, layout.residual_offset, &params_landed);
  }
  allow_next_grid();
  ptx::mbarrier_wait(&landed, 0);
  const unsigned char* params = layout.params_offset ? stage + layout.params_offset : nullptr;
  StagedRowAgent<Policy, TIn, TOut, kSliced>(p, storage, row, slice, stage, layout.residual_offset, params, &params_landed).run();
#endif
}

}  // namespace fusekit::reduce
