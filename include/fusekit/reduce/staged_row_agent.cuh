// fusekit/reduce/staged_row_agent.cuh: one row that the copy engine has brought into a shared-memory
// stage, reduced and written by the whole CTA (sm_90+; layout in staged_traits.hpp).
//
// The row is seen as 16-byte vectors on its own alignment (RowSpan, as in row_agent.cuh). The
// whole vectors are 16-byte aligned in global memory, so one bulk copy brings
// them all into the stage; a partial first vector (m > 0) and a partial last one are read from
// global memory by the threads that own them. Thread t owns vectors t, t + T, t + 2T, ... and
// visits them in that order in every pass (the partial first vector is thread 0's first, the
// partial last vector its owner's last), exactly as the register kernels do: same bits.
//
// The hot loop over whole vectors has no bounds or alignment test (the output rows' alignment is
// decided once per row). All global writes of a row happen after its last reduction, so in-place
// calls are safe.
#pragma once

#include "fusekit/core/launch.cuh"
#include "fusekit/core/mbarrier.cuh"
#include "fusekit/reduce/row_epilogue.cuh"
#include "fusekit/reduce/row_reducer.cuh"
#include "fusekit/reduce/staged_traits.hpp"

namespace fusekit::reduce {

// Hands the copy engine row `row` (and its residual row) into `stage`, completing on `landed`.
// Called by one thread. The dispatch checks that the residual rows share the input rows' alignment.
template <class TIn>
__device__ void stage_row(const RowParams& p, std::int64_t row, unsigned char* stage, int residual_offset,
                          std::uint64_t* landed) {
  const TIn* in_row = static_cast<const TIn*>(p.in) + row * p.in_stride;
  const RowSpan<TIn> span(in_row, p.cols);
  const std::uint32_t bytes = span.staged_bytes();
  ptx::mbarrier_arrive_expect_tx(landed, p.residual ? 2 * bytes : bytes);
  if (bytes == 0) return;
  ptx::bulk_copy_global_to_shared(stage, span.staged_from(in_row), bytes, landed);
  if (p.residual) {
    const TIn* res_row = static_cast<const TIn*>(p.residual) + row * p.residual_stride;
    ptx::bulk_copy_global_to_shared(stage + residual_offset, span.staged_from(res_row), bytes, landed);
  }
}

template <class Policy, class TIn, class TOut> class StagedRowAgent {
 public:
  static constexpr int kVec = 16 / int(sizeof(TIn));
  using In = Fragment<TIn, kVec>;

  __device__ StagedRowAgent(const RowParams& p, ReducerStorage& storage, std::int64_t row, const unsigned char* stage,
                            int residual_offset)
      : p_(p),
        reducer_(storage, int(blockDim.x)),
        row_(row),
        in_row_(static_cast<const TIn*>(p.in) + row * p.in_stride),
        res_row_(p.residual ? static_cast<const TIn*>(p.residual) + row * p.residual_stride : nullptr),
        span_(in_row_, p.cols),
        stage_(stage),
        residual_offset_(residual_offset) {}

  __device__ void run() {
    const typename Policy::Stats stats = Policy::statistics(*this, p_);
    store(stats);
  }

  // --- what a policy may ask of the row (as RowAgent) -------------------------------------------
  __device__ int cols() const { return p_.cols; }
  template <class F> __device__ float sum(F f) { return transform_reduce<SumOp>(f); }
  template <class F> __device__ float max(F f) { return transform_reduce<MaxOp>(f); }
  __device__ float first() const {
    if (span_.first_whole == 0) return to_float(staged(0).v[0]);
    const float x = to_float(in_row_[0]);
    return res_row_ ? to_float(from_float<TIn>(x + to_float(res_row_[0]))) : x;
  }

 private:
  __device__ int tid() const { return int(threadIdx.x); }
  __device__ int threads() const { return int(blockDim.x); }
  // This thread's first whole vector, and its partial ones.
  __device__ int first_whole_of_thread() const { return tid() < span_.first_whole ? tid() + threads() : tid(); }
  __device__ bool owns_partial_first() const { return span_.first_whole == 1 && tid() == 0; }
  __device__ bool owns_partial_last() const { return span_.partial_last() && span_.end_whole % threads() == tid(); }

  // A whole vector, from the stage (after the residual add, rounded to TIn).
  __device__ In staged(int v) const {
    const int offset = (v - span_.first_whole) * 16;
    const In x = *reinterpret_cast<const In*>(stage_ + offset);
    if (!res_row_) return x;
    In sum = x;
    add_residual(sum, *reinterpret_cast<const In*>(stage_ + residual_offset_ + offset));
    return sum;
  }
  // A partial vector, from global memory (zeros outside the row).
  __device__ In partial(int v) const {
    In x;
    read_row_vector(x, in_row_, span_.col(v), p_.cols);
    if (!res_row_) return x;
    In r;
    read_row_vector(r, res_row_, span_.col(v), p_.cols);
    add_residual(x, r);
    return x;
  }

  template <class Op, class F> __device__ float transform_reduce(F f) {
    float acc[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] = Op::identity();
    auto masked = [&](int v) {
      float x[kVec];
      to_floats(x, partial(v));
      const int col = span_.col(v);
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        if (col + e >= 0 && col + e < p_.cols) acc[e] = Op::combine(acc[e], f(x[e]));
    };
    if (owns_partial_first()) masked(0);
#pragma unroll 1
    for (int v = first_whole_of_thread(); v < span_.end_whole; v += threads()) {
      float x[kVec];
      to_floats(x, staged(v));
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[e] = Op::combine(acc[e], f(x[e]));
    }
    if (owns_partial_last()) masked(span_.end_whole);
    return reducer_.template all_reduce<Op>(fold_lanes<Op>(acc));
  }

  __device__ void store(const typename Policy::Stats& stats) {
    if (p_.stats && tid() == 0) Policy::export_stats(p_.stats + row_ * Policy::kStats, stats);
    const RowEpilogue epilogue(p_, row_);
    TOut* out_row = static_cast<TOut*>(p_.out) + row_ * p_.out_stride;
    TIn* res_out_row = p_.residual_out ? static_cast<TIn*>(p_.residual_out) + row_ * p_.residual_out_stride : nullptr;
    // Whole vectors of the output rows are aligned alike (per row, not per vector).
    const int c0 = span_.col(span_.first_whole);
    const bool out_aligned = is_aligned_for<TOut, kVec>(out_row + c0);
    const bool res_out_aligned = res_out_row && is_aligned_for<TIn, kVec>(res_out_row + c0);

    auto finish = [&](int v, const In& x, bool whole) {
      const int col = span_.col(v);
      if (res_out_row) {
        if (whole && res_out_aligned) store_aligned(res_out_row + col, x);
        else write_row_vector(res_out_row, x, col, p_.cols);
      }
      float y[kVec];
      to_floats(y, x);
#pragma unroll
      for (int e = 0; e < kVec; ++e) y[e] = Policy::normalize(y[e], stats);
      if constexpr (kHasEpilogue<Policy>) epilogue.apply<true, false, TIn>(y, col);
      Fragment<TOut, kVec> o;
      from_floats(o, y);
      if (whole && out_aligned) store_aligned(out_row + col, o);
      else write_row_vector(out_row, o, col, p_.cols);
    };
    if (owns_partial_first()) finish(0, partial(0), false);
    for (int v = first_whole_of_thread(); v < span_.end_whole; v += threads()) finish(v, staged(v), true);
    if (owns_partial_last()) finish(span_.end_whole, partial(span_.end_whole), false);
  }

  const RowParams& p_;
  RowReducer<RowShape::warps, kMaxStagedThreads> reducer_;
  std::int64_t row_;
  const TIn* in_row_;
  const TIn* res_row_;
  RowSpan<TIn> span_;
  const unsigned char* stage_;
  int residual_offset_;
};

}  // namespace fusekit::reduce
