// fusekit/reduce/staged_row_agent.cuh: one row (or one slice of a row, in a cluster) that the copy
// engine has brought into a shared-memory stage, reduced and written by the whole CTA (sm_90+;
// layout in staged_traits.hpp).
//
// The row is seen as 16-byte vectors on its own alignment (RowSpan, as in row_agent.cuh). The
// whole vectors are 16-byte aligned in global memory, so bulk copies bring them into the stage; a
// partial first vector (m > 0) and a partial last one are read from global memory by the threads
// that own them. A CTA owns the span's vectors [lo, hi): all of them, or its rank's slice of
// `slice_vectors` (the last rank the rest: up to one more). Thread t owns vectors lo + t, lo + t + T, ... and visits them in that order in
// every pass; with one CTA a row that is exactly the register kernels' order: same bits.
//
// The hot loop over whole vectors has no bounds or alignment test (the output rows' alignment is
// decided once per row). All global writes of a row happen after its last reduction (in a
// cluster, once every CTA's partial of it has arrived, which each CTA computes after all of its
// reads of the row), so in-place calls are safe.
#pragma once

#include "fusekit/core/launch.cuh"
#include "fusekit/core/mbarrier.cuh"
#include "fusekit/reduce/row_epilogue.cuh"
#include "fusekit/reduce/row_reducer.cuh"
#include "fusekit/reduce/staged_traits.hpp"

namespace fusekit::reduce {

// The vectors of a row's span that one CTA stages and reduces: `slice_vectors` each, the last of
// `ranks` CTAs the rest (one more on a row off its alignment: select_sliced_layout).
template <class TIn> struct StagedSlice {
  RowSpan<TIn> span;
  int lo, hi;              // the CTA's vectors of the span
  int whole_lo, whole_hi;  // its whole vectors: what the stage holds, in order

  __device__ StagedSlice(const TIn* row, int cols, int rank, int slice_vectors, int ranks) : span(row, cols) {
    lo = slice_vectors > 0 ? rank * slice_vectors : 0;
    hi = slice_vectors > 0 && rank < ranks - 1 ? min(lo + slice_vectors, span.vectors) : span.vectors;
    if (hi < lo) hi = lo;
    whole_lo = max(lo, span.first_whole);
    whole_hi = max(whole_lo, min(hi, span.end_whole));
  }
  __device__ bool owns_partial_first() const { return span.first_whole == 1 && lo == 0; }
  __device__ bool owns_partial_last() const { return span.partial_last() && span.end_whole >= lo && span.end_whole < hi; }
};

// Hands the copy engine the CTA's whole vectors of row `row` (and of its residual row) into
// `stage`, completing on `landed`: one bulk copy each. (Four copies on four barriers, so that the
// first pass could start on the first quarter, ran 0-8% slower: RESULTS.md, eighteenth session.)
// Called by one thread. The dispatch checks that the residual rows share the input rows' alignment.
template <class TIn>
__device__ void stage_slice(const RowParams& p, std::int64_t row, const StagedSlice<TIn>& s, unsigned char* stage,
                            int residual_offset, std::uint64_t* landed) {
  const TIn* in_row = static_cast<const TIn*>(p.in) + row * p.in_stride;
  const std::uint32_t bytes = std::uint32_t(s.whole_hi - s.whole_lo) * 16;
  ptx::mbarrier_arrive_expect_tx(landed, p.residual ? 2 * bytes : bytes);
  if (bytes == 0) return;
  ptx::bulk_copy_global_to_shared(stage, in_row + s.span.col(s.whole_lo), bytes, landed);
  if (p.residual) {
    const TIn* res_row = static_cast<const TIn*>(p.residual) + row * p.residual_stride;
    ptx::bulk_copy_global_to_shared(stage + residual_offset, res_row + s.span.col(s.whole_lo), bytes, landed);
  }
}

// Hands the copy engine the weight's and the bias's columns of the CTA's whole vectors, into
// `params` and `params + slice_bytes`, completing on `landed` (StagedLayout::params_offset; the
// dispatch stages them only for vector-aligned calls, whose parameters are in TIn on whole vectors).
// Called by one thread.
// kBiased: the policy takes a bias (its stage holds a second slice).
template <class TIn, bool kBiased>
__device__ void stage_params(const RowParams& p, const StagedSlice<TIn>& s, unsigned char* params, int slice_bytes,
                             std::uint64_t* landed) {
  const std::uint32_t bytes = std::uint32_t(s.whole_hi - s.whole_lo) * 16;
  const bool bias = kBiased && p.bias;
  const int given = (p.weight ? 1 : 0) + (bias ? 1 : 0);
  ptx::mbarrier_arrive_expect_tx(landed, given * bytes);
  if (bytes == 0) return;
  const int c0 = s.span.col(s.whole_lo);
  if (p.weight) ptx::bulk_copy_global_to_shared(params, static_cast<const TIn*>(p.weight) + c0, bytes, landed);
  if (bias) ptx::bulk_copy_global_to_shared(params + slice_bytes, static_cast<const TIn*>(p.bias) + c0, bytes, landed);
}

// kSliced: the CTA holds one slice of a row split over a cluster; its reductions go on across
// the cluster's CTAs in rank order.
template <class Policy, class TIn, class TOut, bool kSliced = false> class StagedRowAgent {
 public:
  static constexpr int kVec = 16 / int(sizeof(TIn));
  using In = Fragment<TIn, kVec>;

  __device__ StagedRowAgent(const RowParams& p, ReducerStorage& storage, std::int64_t row, const StagedSlice<TIn>& slice,
                            const unsigned char* stage, int residual_offset, const unsigned char* params = nullptr,
                            std::uint64_t* params_landed = nullptr)
      : p_(p),
        reducer_(storage, int(blockDim.x)),
        row_(row),
        in_row_(static_cast<const TIn*>(p.in) + row * p.in_stride),
        res_row_(p.residual ? static_cast<const TIn*>(p.residual) + row * p.residual_stride : nullptr),
        slice_(slice),
        stage_(stage),
        residual_offset_(residual_offset),
        params_(params),
        params_landed_(params_landed) {}

  __device__ void run() {
    if constexpr (kSliced) {
      // In a cluster the parameters' lines travel to L1 during the reductions, which do not need
      // them: the write loop then waits on L1, not on L2, for each vector's parameters in turn
      // (with two CTAs an SM: 1.2x-1.3x on f32 8 x 262144 norms). One CTA a row lost 5% to it on
      // f32 N = 16384 (RESULTS.md, eighteenth session), so it keeps the plain order.
      const RowEpilogue epilogue(p_, RowEpilogue::table_index(p_, row_));
      // (Staged parameters need it only for the adaLN rows.)
      if constexpr (kHasEpilogue<Policy>)
        if (!params_ || p_.mod_index) for_each_whole([&](int v) { epilogue.prefetch(slice_.span.col(v)); });
      store(Policy::statistics(*this, p_), epilogue);
    } else {
      const typename Policy::Stats stats = Policy::statistics(*this, p_);
      store(stats, RowEpilogue(p_, RowEpilogue::table_index(p_, row_)));
    }
  }

  // --- what a policy may ask of the row (as RowAgent) -------------------------------------------
  __device__ int cols() const { return p_.cols; }
  template <class F> __device__ float sum(F f) { return reducer_.template all_reduce<SumOp>(thread_reduce<SumOp>(f)); }
  template <class F> __device__ float max(F f) { return reducer_.template all_reduce<MaxOp>(thread_reduce<MaxOp>(f)); }
  static constexpr bool kSpansCluster = kSliced;
  template <class Pair> __device__ float2 all_reduce_pair(float2 v) { return reducer_.template all_reduce_pair<Pair>(v); }
  // This thread's partial, no exchange: the whole vectors in order, between the partial first and last.
  template <class Op, class F> __device__ float thread_reduce(F f) {
    float acc[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] = Op::identity();
    auto masked = [&](int v) {
      float x[kVec];
      to_floats(x, partial(v));
      const int col = slice_.span.col(v);
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        if (col + e >= 0 && col + e < p_.cols) acc[e] = Op::combine(acc[e], f(x[e]));
    };
    if (owns_partial_first()) masked(0);
    for_each_whole([&](int v) {
      float x[kVec];
      to_floats(x, staged(v));
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[e] = Op::combine(acc[e], f(x[e]));
    });
    if (owns_partial_last()) masked(slice_.span.end_whole);
    return fold_lanes<Op>(acc);
  }
  // Read from global memory, not the stage: a slice may not hold column 0. Policies ask for it
  // before their first reduction, so before any CTA of the row writes.
  __device__ float first() const {
    const float x = to_float(in_row_[0]);
    return res_row_ ? plus_residual(x, res_row_[0]) : x;
  }

 private:
  __device__ int tid() const { return int(threadIdx.x); }
  __device__ int threads() const { return int(blockDim.x); }
  // This thread's first whole vector, and its partial ones.
  __device__ int first_whole_of_thread() const {
    const int v = slice_.lo + tid();
    return v < slice_.span.first_whole ? v + threads() : v;
  }
  __device__ bool owns_partial_first() const { return slice_.owns_partial_first() && tid() == 0; }
  __device__ bool owns_partial_last() const {
    return slice_.owns_partial_last() && (slice_.span.end_whole - slice_.lo) % threads() == tid();
  }

  // f(v) over this thread's whole vectors, in order.
  template <class F> __device__ void for_each_whole(F f) const {
#pragma unroll 1
    for (int v = first_whole_of_thread(); v < slice_.whole_hi; v += threads()) f(v);
  }
  // A whole vector, from the stage (after the residual add, rounded to TIn).
  __device__ In staged(int v) const {
    const int offset = (v - slice_.whole_lo) * 16;
    const In x = *reinterpret_cast<const In*>(stage_ + offset);
    if (!res_row_) return x;
    In sum = x;
    add_residual(sum, *reinterpret_cast<const In*>(stage_ + residual_offset_ + offset));
    return sum;
  }
  // Parameter k's (0: weight, 1: bias) whole vector v from the stage, zeros where it is not given.
  __device__ In staged_param(int v, int k) const {
    if (!(k == 0 ? p_.weight : Policy::kTakesBias ? p_.bias : nullptr)) return In{};
    return *reinterpret_cast<const In*>(params_ + k * residual_offset_ + (v - slice_.whole_lo) * 16);
  }
  // A partial vector, from global memory (zeros outside the row).
  __device__ In partial(int v) const {
    In x;
    read_row_vector(x, in_row_, slice_.span.col(v), p_.cols);
    if (!res_row_) return x;
    In r;
    read_row_vector(r, res_row_, slice_.span.col(v), p_.cols);
    add_residual(x, r);
    return x;
  }

  __device__ void store(const typename Policy::Stats& stats, const RowEpilogue& epilogue) {
    if (p_.stats && tid() == 0 && slice_.lo == 0) Policy::export_stats(p_.stats + row_ * Policy::kStats, stats);
    TOut* out_row = static_cast<TOut*>(p_.out) + row_ * p_.out_stride;
    TIn* res_out_row = p_.residual_out ? static_cast<TIn*>(p_.residual_out) + row_ * p_.residual_out_stride : nullptr;
    // Whole vectors of the output rows are aligned alike (per row, not per vector). They go out
    // through one 128-bit register each (store_aligned's kOneRegister says why).
    const int c0 = slice_.span.col(slice_.span.first_whole);
    const bool out_aligned = is_aligned_for<TOut, kVec>(out_row + c0);
    const bool res_out_aligned = res_out_row && is_aligned_for<TIn, kVec>(res_out_row + c0);

    using namespace epilogue_steps;
    auto finish = [&](int v, const In& x, bool whole) {
      const int col = slice_.span.col(v);
      if (res_out_row) {
        if (whole && res_out_aligned) store_aligned<true>(res_out_row + col, x);
        else write_row_vector(res_out_row, x, col, p_.cols);
      }
      float y[kVec];
      to_floats(y, x);
#pragma unroll
      for (int e = 0; e < kVec; ++e) y[e] = Policy::normalize(y[e], stats);
      if constexpr (kHasEpilogue<Policy>) {
        if (params_ && whole) {  // the staged parameters (a parameter not given: zeros, unused)
          float w[kVec], b[kVec];
          to_floats(w, staged_param(v, 0));
          to_floats(b, staged_param(v, 1));
          epilogue.apply<true, RowAlignment::aligned, TIn, kTested, Policy::kTakesBias>(y, w, b, col);
        } else {
          epilogue.apply<true, RowAlignment::general, TIn, kTested, Policy::kTakesBias>(y, col);
        }
      }
      Fragment<TOut, kVec> o;
      from_floats(o, y);
      if (whole && out_aligned) store_aligned<true>(out_row + col, o);
      else write_row_vector(out_row, o, col, p_.cols);
    };
    if (params_) ptx::mbarrier_wait(params_landed_, 0);
    if (owns_partial_first()) finish(0, partial(0), false);
    for_each_whole([&](int v) { finish(v, staged(v), true); });
    if (owns_partial_last()) finish(slice_.span.end_whole, partial(slice_.span.end_whole), false);
  }

  const RowParams& p_;
  RowReducer<kSliced ? RowShape::cluster : RowShape::warps, kSliced ? kMaxSlicedThreads : kMaxStagedThreads> reducer_;
  std::int64_t row_;
  const TIn* in_row_;
  const TIn* res_row_;
  StagedSlice<TIn> slice_;
  const unsigned char* stage_;
  int residual_offset_;
  const unsigned char* params_;  // the staged weight and bias slices (stage_params), or null
  std::uint64_t* params_landed_;
};

}  // namespace fusekit::reduce
