// fusekit/reduce/row_agent.cuh: one thread's share of one row, from load to store.
//
// The row is read once from HBM into registers as 16-byte vectors laid on the row's own alignment:
// vector v covers columns [v*kVec - m, v*kVec - m + kVec), m being how many elements the row start
// sits past a 16-byte boundary. Interior vectors are whole aligned loads; only the first and last may
// be partial, and those are read element by element. So odd N (1537) and rows of a dense odd-width
// matrix keep 16-byte loads for all but two vectors.
//
// The policy computes its statistics through sum()/max()/first(), then the agent writes
// normalize(x) with the optional affine and adaLN modulation applied. All global writes happen
// after the last reduction, which makes in-place calls (out == in, residual_out == residual) safe
// even when a row is split over a cluster.
#pragma once

#include "fusekit/core/launch.cuh"
#include "fusekit/core/vector_io.cuh"
#include "fusekit/reduce/row_epilogue.cuh"
#include "fusekit/reduce/row_params.hpp"
#include "fusekit/reduce/row_reducer.cuh"

namespace fusekit::reduce {

// kAligned: the call's rows and parameters are all vector-aligned (RowParams::vectors_aligned), so
// every vector is one aligned access with no tests; same arithmetic, same bits.
template <class Policy, class TIn, class TOut, RowShape kShape, bool kAligned = false> class RowAgent {
 public:
  static constexpr int kVec = 16 / int(sizeof(TIn));
  static constexpr int kChunks = chunks_of(kShape);
  // Partial vectors out of line in the cluster kernel only (row_epilogue.cuh says why).
  static constexpr bool kOutline = kShape == RowShape::cluster;

  __device__ RowAgent(const RowParams& p, ReducerStorage& storage, std::int64_t row, int rank, int vectors_per_cta)
      : p_(p), reducer_(storage, blockDim.x), row_(row), active_(row < p.rows) {
    const int first = rank * vectors_per_cta + int(threadIdx.x);  // this thread's vector in chunk 0
    int vectors;  // the row's vectors
    if constexpr (kAligned) {
      col0_ = first * kVec;
      vectors = p.cols / kVec;
    } else {
      const TIn* in_row = static_cast<const TIn*>(p.in) + (active_ ? row * p.in_stride : 0);
      const RowSpan<TIn> span(in_row, p.cols);
      col0_ = span.col(first);
      vectors = span.vectors;
    }
    // Chunks c < live_chunks_ hold vectors of the row: inside this CTA's share and inside the row.
    const int cta_end = min(vectors, (rank + 1) * vectors_per_cta);
    // (Counted, not divided: an integer division was 30 instructions of every thread's prologue.)
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (active_ && first + c * int(blockDim.x) < cta_end) live_chunks_ = c + 1;
  }

  // The statistics pass and the write pass; the policy decides what is reduced.
  __device__ void run() {
    load();
    allow_next_grid();  // the row is in registers: the next kernel may be scheduled
    const typename Policy::Stats stats = Policy::statistics(*this, p_);
    store(stats);
  }

  // --- what a policy may ask of the row ---------------------------------------------------------
  __device__ int cols() const { return p_.cols; }

  template <class F> __device__ float sum(F f) { return transform_reduce<SumOp>(f); }
  template <class F> __device__ float max(F f) { return transform_reduce<MaxOp>(f); }

  // Element 0 of the row (after the residual add), the same value in every thread of the row.
  // Loaded with the row, so its latency hides behind the row's own loads.
  __device__ float first() const { return first_; }

 private:
  __device__ static float round_to_input(float x) { return to_float(from_float<TIn>(x)); }
  // First column of chunk c (negative for the head of a misaligned row).
  __device__ int col(int c) const { return col0_ + c * int(blockDim.x) * kVec; }
  __device__ bool live(int c) const { return c < live_chunks_; }
  __device__ bool whole(int c) const { return col(c) >= 0 && col(c) + kVec <= p_.cols; }
  __device__ bool inside(int c, int e) const { return col(c) + e >= 0 && col(c) + e < p_.cols; }

  template <class T> __device__ void read(Fragment<T, kVec>& f, const T* row, int c) const {
    if constexpr (kAligned) load_aligned(f, row + col(c));
    else read_row_vector<kOutline>(f, row, col(c), p_.cols);
  }
  template <class T> __device__ void write(T* row, const Fragment<T, kVec>& f, int c) const {
    if constexpr (kAligned) store_aligned(row + col(c), f);
    else write_row_vector<kOutline>(row, f, col(c), p_.cols);
  }

  __device__ void load() {
    if (!active_) return;
    const TIn* in_row = static_cast<const TIn*>(p_.in) + row_ * p_.in_stride;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c)) read(x_[c], in_row, c);
    // All reads of the row happen before any reduction, hence before any CTA of the row writes.
    first_ = to_float(in_row[0]);
    if (p_.residual == nullptr) return;
    const TIn* res_row = static_cast<const TIn*>(p_.residual) + row_ * p_.residual_stride;
    first_ = round_to_input(first_ + to_float(res_row[0]));
    Fragment<TIn, kVec> r[kChunks];  // all loads in flight before the first add
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c)) read(r[c], res_row, c);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c)) add_residual(x_[c], r[c]);
  }

  template <class Op, class F> __device__ float transform_reduce(F f) {
    float acc[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] = Op::identity();
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (!live(c)) continue;
      float x[kVec];
      to_floats(x, x_[c]);
      if (kAligned || whole(c)) {  // every vector but a misaligned row's first and last: no per-element tests
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[e] = Op::combine(acc[e], f(x[e]));
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          if (inside(c, e)) acc[e] = Op::combine(acc[e], f(x[e]));
      }
    }
    return reducer_.template all_reduce<Op>(fold_lanes<Op>(acc));
  }

  __device__ void store(const typename Policy::Stats& stats) {
    if (!active_) return;
    if (p_.stats && threadIdx.x == 0 && col(0) <= 0)  // the thread that holds column 0
      Policy::export_stats(p_.stats + row_ * Policy::kStats, stats);

    const RowEpilogue epilogue(p_, row_);
    TOut* out_row = static_cast<TOut*>(p_.out) + row_ * p_.out_stride;
    TIn* res_out_row = p_.residual_out ? static_cast<TIn*>(p_.residual_out) + row_ * p_.residual_out_stride : nullptr;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (!live(c)) continue;
      if (res_out_row) write(res_out_row, x_[c], c);
      float y[kVec];
      to_floats(y, x_[c]);
#pragma unroll
      for (int e = 0; e < kVec; ++e) y[e] = Policy::normalize(y[e], stats);
      if constexpr (kHasEpilogue<Policy>) epilogue.apply<kOutline, kAligned, TIn>(y, col(c));
      Fragment<TOut, kVec> o;
      from_floats(o, y);
      write(out_row, o, c);
    }
  }

  const RowParams& p_;
  RowReducer<kShape> reducer_;
  std::int64_t row_;
  bool active_;
  int col0_ = 0;
  int live_chunks_ = 0;
  float first_ = 0.f;
  Fragment<TIn, kVec> x_[kChunks];
};

}  // namespace fusekit::reduce
