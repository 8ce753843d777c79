// fusekit/reduce/row_agent.cuh: one thread's share of one row, from load to store.
//
// The row is read once from HBM into registers as 16-byte vectors laid on the row's own alignment:
// vector v covers columns [v*kVec - m, v*kVec - m + kVec), m being how many elements the row start
// sits past a 16-byte boundary. Interior vectors are whole aligned loads; only the first and last may
// be partial, and those are read element by element. So odd N (1537) and rows of a dense odd-width
// matrix keep 16-byte loads for all but two vectors.
//
// The policy computes its statistics through sum()/max()/first(), then the agent writes
// normalize(x) with the optional affine and adaLN modulation applied. In aligned calls of 16-bit
// rows the weight and bias vectors are loaded with the row and held in registers, so the write
// pass does not wait on L2 for each vector's parameters in turn (the stores between them keep the
// compiler from hoisting those loads itself). All global writes happen after the last reduction,
// which makes in-place calls (out == in, residual_out == residual) safe even when a row is split
// over a cluster.
#pragma once

#include "fusekit/core/launch.cuh"
#include "fusekit/core/vector_io.cuh"
#include "fusekit/reduce/row_epilogue.cuh"
#include "fusekit/reduce/row_params.hpp"
#include "fusekit/reduce/row_reducer.cuh"

namespace fusekit::reduce {

// Phased kernels hold their parameters only in a FUSEKIT_ROW_PHASED_HOLDS build (a sweep knob;
// RowAgent's kHoldsParams says why not by default).
#ifdef FUSEKIT_ROW_PHASED_HOLDS
inline constexpr bool kRowPhasedHolds = true;
#else
inline constexpr bool kRowPhasedHolds = false;
#endif

// Whether a register kernel may share its parameters between the CTA's rows: 16-bit warp rows
// (two or four a CTA where the call has rows enough), aligned (CtaRows::sharing) or phased and not
// holding (CtaRows::one_phase). (Not f32 rows, which read their parameters at the store: shared,
// f32 8192 x 1024 ran 0.96-0.99x; H100, forty-third session. Sub-warp rows could, but no benchmark
// shape measures them, and the f16 LayerNorm phased kernel spilled.) On the host too: the
// dispatch's plan (plan_rows) asks it.
constexpr bool can_share_params(bool has_epilogue, RowShape shape, std::size_t in_bytes, RowAlignment align) {
  return has_epilogue && shape == RowShape::warps && in_bytes == 2 &&
         (align == RowAlignment::aligned || (align == RowAlignment::phased && !kRowPhasedHolds));
}

// kAlign (RowAlignment): aligned, the call's rows and parameters are all vector-aligned
// (RowParams::vectors_aligned), so every vector is one aligned access with no tests; phased, the
// rows may sit at any alignment but the parameters are in TIn and vector-aligned
// (RowParams::params_aligned), so each parameter vector is read whole (load_straddling) and the
// write loops are the aligned kernels'; general, anything. Same arithmetic, same bits for a row at the same alignment.
//
// kHelped: the CTA holds one row and a second group of threads of the same layout, the helpers
// (threadIdx.y == 1). The row's own threads read and reduce the whole row and write all but its
// last chunk; the helpers read only that chunk, take the row's sums from the owners' warp
// partials (RowReducer's kFromRowZero), so they hold the same statistics bit for bit, and write it.
// For calls of few rows, where a CTA is alone on its SM and the time is one warp's chain of
// instructions: the write pass is the longest part of it (RESULTS.md, thirty-sixth session).
// The arithmetic of every element is unchanged, so are the bits.
// kRows (CtaRows::one_phase, phased kernels of warp rows): the CTA's rows share one phase; during
// the load each row's threads put a chunk of the parameter vectors into shared memory
// (share_params), and every row's write pass takes them from there (one LDS.128 a vector, where
// each row read the two words a vector straddles and shifted them). The same values, so the same bits.
// CtaRows::sharing does the same for the aligned kernels of warp rows, in place of holding the
// parameters in registers row by row.
template <class Policy, class TIn, class TOut, RowShape kShape, RowAlignment kAlign = RowAlignment::general,
          CtaRows kRows = CtaRows::independent>
class RowAgent {
 public:
  static constexpr bool kHelped = kRows == CtaRows::helped;
  static constexpr bool kSharesParams = kRows == CtaRows::one_phase || kRows == CtaRows::sharing;
  static constexpr bool kAligned = kAlign == RowAlignment::aligned;
  static constexpr int kVec = 16 / int(sizeof(TIn));
  static constexpr int kChunks = chunks_of(kShape);
  // Outside clusters the layout covers an aligned row exactly (tile_traits.hpp); a misaligned row
  // spans one vector more, vector threads x chunks, which thread 0 of the general agent keeps in
  // shared memory. As a register slot that every thread carries it cost RMSNorm's 5462 x 1537 rows
  // 10% (bf16) and 8% (f32) (RESULTS.md, nineteenth session).
  static constexpr bool kSpills = !kAligned && kShape != RowShape::cluster;
  // Aligned and phased calls of 16-bit rows hold the weight and bias vectors from the row's loads
  // to its stores: 1.1-1.2x on the bf16 mid rows (RESULTS.md, nineteenth session). Not f32 rows
  // (held, f32 LayerNorm ran 0.89x-1.09x of not held over N = 4096-8192: half the elements a byte,
  // the registers cost about what the loads save), not the modulation's (its table rows differ per
  // row: held too, the 4096-token H3 norm lost 10%), and not in clusters (16 vectors a thread).
  // Phased kernels hold them only where FUSEKIT_ROW_PHASED_HOLDS is set (kRowPhasedHolds): held, bf16
  // LayerNorm took 78 registers a thread at 2 vectors a thread against 48, and the N = 1537 rows ran
  // 0.75-0.99x of not held (H100, RESULTS.md, thirty-fourth session). Nor LayerNorm's over the
  // block layout (4 vectors a thread): weight and bias held took 77 registers a thread against 52,
  // 4 CTAs an SM against 6, and bf16 rows of 5376-8192 ran 0.84-0.86x of not held; RMSNorm's
  // weight alone stays held there (not held: 0.90-1.14x, slower at 925 H3 tokens; H100, RESULTS.md,
  // thirty-seventh session). The wide layout (8 vectors a thread) holds both: not held took 80
  // registers against 100 / 128 and 3 CTAs an SM against 2, yet bf16 512 x 16384 ran 0.93x (RMSNorm)
  // and 0.98x (LayerNorm) of held (H100, thirty-eighth session).
  // CTAs that share their parameters (kSharesParams) read them from shared memory instead.
  static constexpr bool kHoldsParams = (kAligned || (kAlign == RowAlignment::phased && kRowPhasedHolds)) &&
                                       kHasEpilogue<Policy> && kShape != RowShape::cluster && sizeof(TIn) == 2 &&
                                       !(Policy::kTakesBias && kShape == RowShape::block) && !kSharesParams;
  // CTAs an SM the kernel is compiled for (__launch_bounds__; 0: ptxas's choice). The kernels whose
  // rows share their parameters (kSharesParams; 256 threads a CTA or fewer): 6, 40 registers
  // a thread. ptxas gave bf16 LayerNorm 48 (5 CTAs an SM): bounded, the aligned kernel has no spill
  // and ran 8192 x 1024 1.04-1.05x, the phased bf16 kernels (47-48) spill 40-68 bytes and ran
  // 5462 x 1537 1.01-1.05x (H100 and H200, forty-third session). Not the phased f16 kernels: they
  // spill 96-164 bytes so, and no benchmark measures them. The kernels that hold their parameters
  // spilled 288 bytes so bounded and ran 0.4-0.7x.
  static constexpr int kMinCtasPerSm =
      kSharesParams && (kAligned || !std::is_same_v<TIn, fp16_t>) ? 6 : 0;
  // Partial vectors out of line in the cluster kernel only (row_epilogue.cuh says why).
  static constexpr bool kOutline = kShape == RowShape::cluster;
  static_assert(!kHelped || (kChunks == 2 && kShape != RowShape::cluster), "helpers take the second of two chunks");
  static constexpr bool kCanShareParams = can_share_params(kHasEpilogue<Policy>, kShape, sizeof(TIn), kAlign);
  static_assert(!kSharesParams || (kCanShareParams && (kRows == CtaRows::sharing) == kAligned),
                "one_phase: phased kernels of warp rows; sharing: aligned ones");

  __device__ RowAgent(const RowParams& p, ReducerStorage& storage, std::int64_t row, int rank, int vectors_per_cta)
      : p_(p), reducer_(storage, blockDim.x), row_(row), active_(row < p.rows),
        helper_(kHelped && threadIdx.y == 1) {
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
    if constexpr (kSpills) spills_ = active_ && !helper_ && first + kChunks * int(blockDim.x) < cta_end;  // thread 0 at most
  }

  // The statistics pass and the write pass; the policy decides what is reduced. run() and store()
  // are forced inline: nvcc left the phased LayerNorm kernels' store() (4 and 8 vectors a thread)
  // out of line, the agent and its row on a 416-544 byte stack (ptxas).
  __device__ __forceinline__ void run() {
    load();
    allow_next_grid();  // the row is in registers: the next kernel may be scheduled
    const typename Policy::Stats stats = Policy::statistics(*this, p_);
    store(stats);  // (kSharesParams: the shared parameters are visible after the reductions' barriers)
  }

  // --- what a policy may ask of the row ---------------------------------------------------------
  __device__ int cols() const { return p_.cols; }

  template <class F> __device__ float sum(F f) { return reducer_.template all_reduce<SumOp>(thread_reduce<SumOp>(f)); }
  template <class F> __device__ float max(F f) { return reducer_.template all_reduce<MaxOp>(thread_reduce<MaxOp>(f)); }

  // Rows over a cluster may combine two statistics in one exchange (RowReducer::all_reduce_pair):
  // this thread's partial of each, then the pair over the row.
  static constexpr bool kSpansCluster = kShape == RowShape::cluster;
  template <class Op, class F> __device__ float thread_reduce(F f) {
    float acc[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] = Op::identity();
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && !helper_) accumulate<Op>(acc, x_[c], c, f);  // the helpers' partials are not read
    if constexpr (kSpills)
      if (spills_) accumulate<Op>(acc, spill(), kChunks, f);  // after the slots: the staged agent's order
    return fold_lanes<Op>(acc);
  }
  template <class Pair> __device__ float2 all_reduce_pair(float2 v) { return reducer_.template all_reduce_pair<Pair>(v); }

  // Element 0 of the row (after the residual add), the same value in every thread of the row.
  // Read when a policy asks (LayerNorm's pivot), before its first reduction, so before any CTA of
  // the row writes; read with every row it cost the other policies a load and a register.
  __device__ float first() const {
    if (!active_) return 0.f;
    const float x = to_float(static_cast<const TIn*>(p_.in)[row_ * p_.in_stride]);
    if (p_.residual == nullptr) return x;
    return plus_residual(x, static_cast<const TIn*>(p_.residual)[row_ * p_.residual_stride]);
  }

 private:
  // First column of chunk c (negative for the head of a misaligned row).
  __device__ int col(int c) const { return col0_ + c * int(blockDim.x) * kVec; }
  __device__ bool live(int c) const { return c < live_chunks_; }
  // kHelped: the helpers read and write the last chunk only; the owners read all, write the others.
  __device__ bool reads(int c) const { return !kHelped || !helper_ || c == kChunks - 1; }
  __device__ bool writes(int c) const { return !kHelped || (c == kChunks - 1) == helper_; }
  __device__ bool whole(int c) const { return col(c) >= 0 && col(c) + kVec <= p_.cols; }
  __device__ bool inside(int c, int e) const { return col(c) + e >= 0 && col(c) + e < p_.cols; }

  template <class T> __device__ void read(Fragment<T, kVec>& f, const T* row, int c) const {
    if constexpr (kAligned) load_aligned(f, row + col(c));
    else read_row_vector<kOutline>(f, row, col(c), p_.cols);
  }
  // The input row's whole vectors are 16-byte aligned by construction (the layout follows the
  // input row's own alignment), so they skip read()'s address test; the residual's rows may sit
  // at another alignment and take read() whole.
  __device__ void read_input(Fragment<TIn, kVec>& f, const TIn* row, int c) const {
    if (!kAligned && whole(c)) load_aligned(f, row + col(c));
    else read(f, row, c);
  }
  template <class T> __device__ void write(T* row, const Fragment<T, kVec>& f, int c) const {
    if constexpr (kAligned) store_aligned(row + col(c), f);
    else write_row_vector<kOutline>(row, f, col(c), p_.cols);
  }

  __device__ void load() {
    if (!active_) return;
    const TIn* in_row = static_cast<const TIn*>(p_.in) + row_ * p_.in_stride;
    // All reads of the row happen before any reduction, hence before any CTA of the row writes.
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && reads(c)) read_input(x_[c], in_row, c);
    if constexpr (kHasEpilogue<Policy>) table_index_ = RowEpilogue::table_index(p_, row_);
    if constexpr (kSharesParams) {
      share_params();
    } else if constexpr (kAlign == RowAlignment::phased && !kHoldsParams) {
      if (p_.prefetch_params) {
        const RowEpilogue epilogue(p_, table_index_);
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
          if (live(c) && writes(c)) epilogue.prefetch(::max(col(c), 0));  // the head vector's line: the parameters' start
      }
    }
    if (p_.residual) add_residual_row();
    if constexpr (kSpills)
      if (spills_) spill() = summed_vector(in_row, kChunks);
    // After the residual's add: with the residual's vectors in flight as well, 8-vector rows
    // took 28 more registers a thread, residual or not.
    if constexpr (kHoldsParams) {
      // params_aligned: the parameters are in TIn and vector-aligned. Measured both ways (RESULTS.md,
      // twenty-first and twenty-second sessions): weight and bias in a loop each, inside its one
      // test, ran bf16 LayerNorm 1-13% faster than one loop testing both per vector, and that
      // one loop ran bf16 RMSNorm (the weight alone) 4-13% faster than its loop in a test.
      if constexpr (Policy::kTakesBias) {
        if (p_.weight) load_params(params_.weight, p_.weight);
        if (p_.bias) load_params(params_.bias, p_.bias);
      } else {
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          if (!live(c) || !writes(c)) continue;
          if (p_.weight) read_param(params_.weight[c], p_.weight, c);
        }
      }
    }
  }

  // kSharesParams: the weight and bias vectors into shared memory, for every row of the CTA. (Warp
  // rows have 64 threads or more, so the reductions' cross-warp step, a CTA barrier, makes them
  // visible to every row before its write pass.) The chunks of the parameters (weight chunk 0, 1,
  // then bias chunk 0, 1) are dealt to the CTA's rows in turn, row 0 taking those of rows past the
  // matrix's end (row 0 is inside wherever any row of the CTA is), so that no row's threads reach
  // the first barrier carrying all of the reads.
  __device__ void share_params() const {
    const int y = int(threadIdx.y), per = int(blockDim.y);  // per: 2 or 4 (the dispatch's)
    const std::int64_t step = kRows == CtaRows::one_phase ? kPhaseRows : 1;  // between the CTA's rows
#pragma unroll
    for (int k = 0; k < (Policy::kTakesBias ? 2 : 1); ++k)
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        // Item k * kChunks + c goes to row item % per, or to row 0 where that row is past the end
        // (row 0 is the CTA's first, row_ - step * y). Unrolled, items 0 and 1 know their row. (As a
        // loop over each row's items this cost the phased kernels 1.5-4%: H100, forty-third session.)
        const int item = k * kChunks + c, reader = item < 2 ? item : item & (per - 1);
        const bool reader_past_end = row_ + step * (reader - y) >= p_.rows;
        if (!live(c) || !(reader == y || (y == 0 && reader_past_end))) continue;
        const void* param = k == 0 ? p_.weight : p_.bias;
        if (param) read_param(shared_params()[k][c][threadIdx.x], param, c);
      }
  }
  // [weight, bias][chunk][thread of a row]. Declared here, so only the sharing kernels hold it.
  using SharedParams = Fragment<TIn, kVec>[Policy::kTakesBias ? 2 : 1][kChunks][max_threads_of(kShape)];
  __device__ static SharedParams& shared_params() {
    __shared__ SharedParams params;
    return params;
  }
  // Parameter k's (0: weight, 1: bias) vector of chunk c, held in registers or shared by the CTA.
  __device__ const Fragment<TIn, kVec>& held_param(int k, int c) const {
    if constexpr (kSharesParams) return shared_params()[Policy::kTakesBias ? k : 0][c][threadIdx.x];
    else return k == 0 ? params_.weight[c] : params_.bias[Policy::kTakesBias ? c : 0];
  }

  // The held vectors of one parameter (kHoldsParams).
  __device__ void load_params(Fragment<TIn, kVec> (&held)[kChunks], const void* param) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && writes(c)) read_param(held[c], param, c);
  }
  __device__ void read_param(Fragment<TIn, kVec>& f, const void* param, int c) const {
    read_param_fragment<kAlign>(f, static_cast<const TIn*>(param), col(c), p_.cols);
  }

  __device__ void add_residual_row() {
    const TIn* res_row = static_cast<const TIn*>(p_.residual) + row_ * p_.residual_stride;
    Fragment<TIn, kVec> r[kChunks];  // all loads in flight before the first add
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && reads(c)) read(r[c], res_row, c);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && reads(c)) add_residual(x_[c], r[c]);
  }

  // The spilled vector of this CTA's row threadIdx.y (kSpills): at most 64 rows a CTA (256
  // threads, at least 4 a row). Declared here, not passed in, so it is addressed as shared memory.
  __device__ static Fragment<TIn, kVec>& spill() {
    __shared__ Fragment<TIn, kVec> rows[max_threads_of(kShape) / 4];
    return rows[threadIdx.y];
  }

  // Vector c of the row with the residual added (the spilled vector: read once, in load()).
  __device__ Fragment<TIn, kVec> summed_vector(const TIn* in_row, int c) const {
    Fragment<TIn, kVec> x;
    read_input(x, in_row, c);
    if (!p_.residual) return x;
    Fragment<TIn, kVec> r;
    read(r, static_cast<const TIn*>(p_.residual) + row_ * p_.residual_stride, c);
    add_residual(x, r);
    return x;
  }

  template <class Op, class F>
  __device__ void accumulate(float (&acc)[kVec], const Fragment<TIn, kVec>& v, int c, F f) const {
    float x[kVec];
    to_floats(x, v);
    if (kAligned || whole(c)) {  // every vector but a misaligned row's first and last: no per-element tests
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[e] = Op::combine(acc[e], f(x[e]));
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        if (inside(c, e)) acc[e] = Op::combine(acc[e], f(x[e]));
    }
  }

  __device__ __forceinline__ void store(const typename Policy::Stats& stats) {
    if (!active_) return;
    using namespace epilogue_steps;
    // The general kernels make the epilogue before anything is written, the aligned and phased
    // ones on the path that takes it: the other way round cost the general bf16 RMSNorm a spill
    // and the aligned kernels up to 8 registers a thread.
    if constexpr (kAlign == RowAlignment::general) {
      const RowEpilogue epilogue(p_, table_index_);
      write_stats_and_sum(stats);
      write_normalized_row<kTested>(stats, epilogue);
    } else {
      write_stats_and_sum(stats);
      if constexpr (kHasEpilogue<Policy>) {
        // The common option sets get loops of their own (RowEpilogue's kSteps says why); a
        // weight offset or a bad table index takes the tested loop.
        switch (RowEpilogue::plain_steps(p_, table_index_)) {
          case 0: return write_normalized_row<0>(stats);
          case kWeight: return write_normalized_row<kWeight>(stats);
          case kModulation: return write_normalized_row<kModulation>(stats);
          case kWeight | kModulation: return write_normalized_row<kWeight | kModulation>(stats);
          case kWeight | kBias:
            if constexpr (Policy::kTakesBias) return write_normalized_row<kWeight | kBias>(stats);
            break;
          default: break;
        }
      }
      write_normalized_row<kTested>(stats);
    }
  }

  // The row's statistics (by the thread that holds column 0) and the summed row (residual_out).
  __device__ void write_stats_and_sum(const typename Policy::Stats& stats) const {
    if (p_.stats && threadIdx.x == 0 && col(0) <= 0 && !helper_) Policy::export_stats(p_.stats + row_ * Policy::kStats, stats);
    if (p_.residual_out) {  // a loop of its own: inside the next one its addresses took 8 registers a thread
      TIn* res_out_row = static_cast<TIn*>(p_.residual_out) + row_ * p_.residual_out_stride;
#pragma unroll
      for (int c = 0; c < kChunks; ++c)
        if (live(c) && writes(c)) write(res_out_row, x_[c], c);
      if constexpr (kSpills)
        if (spills_) write(res_out_row, spill(), kChunks);
    }
  }

  // The aligned kernels' epilogue, made on the path that takes it (store() says why).
  template <unsigned kSteps> __device__ void write_normalized_row(const typename Policy::Stats& stats) const {
    write_normalized_row<kSteps>(stats, RowEpilogue(p_, table_index_));
  }

  template <unsigned kSteps>
  __device__ void write_normalized_row(const typename Policy::Stats& stats, const RowEpilogue& epilogue) const {
    TOut* out_row = static_cast<TOut*>(p_.out) + row_ * p_.out_stride;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if (live(c) && writes(c)) write_normalized<kSteps, kHoldsParams || kSharesParams>(out_row, x_[c], c, stats, epilogue);
    if constexpr (kSpills)  // no held parameters: the spilled vector's are read here
      if (spills_) write_normalized<kSteps, false>(out_row, spill(), kChunks, stats, epilogue);
  }

  template <unsigned kSteps, bool kHeld>
  __device__ void write_normalized(TOut* out_row, const Fragment<TIn, kVec>& x, int c,
                                   const typename Policy::Stats& stats, const RowEpilogue& epilogue) const {
    float y[kVec];
    to_floats(y, x);
#pragma unroll
    for (int e = 0; e < kVec; ++e) y[e] = Policy::normalize(y[e], stats);
    if constexpr (kHeld) {
      float w[kVec], b[kVec];
      to_floats(w, held_param(0, c));
      if constexpr (Policy::kTakesBias) to_floats(b, held_param(1, c));
      epilogue.apply<kOutline, kAlign, TIn, kSteps, Policy::kTakesBias>(y, w, b, col(c));
    } else if constexpr (kHasEpilogue<Policy>) {
      epilogue.apply<kOutline, kAlign, TIn, kSteps, Policy::kTakesBias>(y, col(c));
    }
    Fragment<TOut, kVec> o;
    from_floats(o, y);
    write(out_row, o, c);
  }

  const RowParams& p_;
  RowReducer<kShape, max_threads_of(kShape), kHelped> reducer_;
  std::int64_t row_;
  bool active_;
  bool helper_;  // kHelped and threadIdx.y == 1
  bool spills_ = false;
  int col0_ = 0;
  int live_chunks_ = 0;
  std::int32_t table_index_ = 0;  // RowEpilogue::table_index, read with the row
  Fragment<TIn, kVec> x_[kChunks];
  struct HeldParams {
    Fragment<TIn, kVec> weight[kChunks], bias[Policy::kTakesBias ? kChunks : 1];
  };
  struct NoParams {};
  [[no_unique_address]] std::conditional_t<kHoldsParams, HeldParams, NoParams> params_;
};

}  // namespace fusekit::reduce
