// fusekit/reduce/row_epilogue.cuh: what every row kernel does to a normalized vector on its way out
// (the affine and the adaLN modulation), and the vector reads and writes of a row at any alignment.
#pragma once

#include "fusekit/core/vector_io.cuh"
#include "fusekit/reduce/row_params.hpp"

#include <cmath>

namespace fusekit::reduce {

// A row as 16-byte vectors on its own alignment: vector v covers columns
// [v*kVec - m, v*kVec - m + kVec), m being how many elements the row start sits past a 16-byte
// boundary; [first_whole, end_whole) are the vectors wholly inside the row.
template <class TIn> struct RowSpan {
  static constexpr int kVec = 16 / int(sizeof(TIn));
  int misalignment;  // m, in elements
  int vectors;       // vectors the row spans
  int first_whole;   // [first_whole, end_whole): the staged vectors
  int end_whole;

  __device__ RowSpan(const TIn* row, int cols)
      : misalignment(int((reinterpret_cast<std::uintptr_t>(row) % 16) / sizeof(TIn))),
        vectors((cols + misalignment + kVec - 1) / kVec),
        first_whole(misalignment > 0 ? 1 : 0),
        end_whole((cols + misalignment) / kVec) {}

  __device__ int col(int v) const { return v * kVec - misalignment; }
  // For the staged kernel: the whole vectors are its bulk copy, the others are read from global.
  __device__ bool partial_last() const { return end_whole < vectors && end_whole >= first_whole; }
  __device__ std::uint32_t staged_bytes() const { return end_whole > first_whole ? (end_whole - first_whole) * 16 : 0; }
  __device__ const TIn* staged_from(const TIn* row) const { return row + col(first_whole); }
};

// One element x plus its residual r, rounded to T as add_residual rounds the held rows: how every
// agent reads a single element of the summed row (LayerNorm's pivot).
template <class T> __device__ __forceinline__ float plus_residual(float x, T r) {
  return to_float(from_float<T>(x + to_float(r)));
}

// x = x + r, rounded to T: the fused residual add of both agents.
template <class T, int N> __device__ __forceinline__ void add_residual(Fragment<T, N>& x, const Fragment<T, N>& r) {
  float a[N], b[N];
  to_floats(a, x);
  to_floats(b, r);
#pragma unroll
  for (int e = 0; e < N; ++e) a[e] += b[e];
  from_floats(x, a);
}

// The element-by-element reads and writes of the partial vectors (a misaligned row's first and
// last, or a row whose pointer is not 16-byte aligned), out of line when kOutline: inlined into
// every unrolled vector of the 16-vector cluster kernel they made its code several times larger
// (out of line: 1.07-1.36x on rows of 65536-262144, benchmark/RESULTS.md); the 2-8 vector
// kernels keep them inline, where the calls cost registers and a CTA per SM. Fragments travel by
// value, so the hot path's registers stay registers.
template <class T, int N> __device__ __forceinline__ void read_elements(Fragment<T, N>& f, const T* p, int col, int cols) {
#pragma unroll
  for (int e = 0; e < N; ++e) f.v[e] = col + e >= 0 && col + e < cols ? p[e] : from_float<T>(0.f);
}
template <class T, int N> __device__ __forceinline__ void write_elements(T* p, const Fragment<T, N>& f, int col, int cols) {
#pragma unroll
  for (int e = 0; e < N; ++e)
    if (col + e >= 0 && col + e < cols) p[e] = f.v[e];
}
template <class T, int N> __device__ __noinline__ Fragment<T, N> read_partial_vector(const T* p, int col, int cols) {
  Fragment<T, N> f;
  read_elements(f, p, col, cols);
  return f;
}
template <class T, int N> __device__ __noinline__ void write_partial_vector(T* p, Fragment<T, N> f, int col, int cols) {
  write_elements(p, f, col, cols);
}

// Elements [col, col + N) of a row of `cols` elements: one aligned 16-byte access when the vector
// lies inside the row and the address allows it, else element by element (zeros outside the row
// on reads; nothing outside it written).
template <bool kOutline = false, class T, int N>
__device__ __forceinline__ void read_row_vector(Fragment<T, N>& f, const T* row, int col, int cols) {
  const T* p = row + col;
  if (col >= 0 && col + N <= cols && is_aligned_for<T, N>(p)) {
    load_aligned(f, p);
  } else if constexpr (kOutline) {
    f = read_partial_vector<T, N>(p, col, cols);
  } else {
    read_elements(f, p, col, cols);
  }
}
template <bool kOutline = false, class T, int N>
__device__ __forceinline__ void write_row_vector(T* row, const Fragment<T, N>& f, int col, int cols) {
  T* p = row + col;
  if (col >= 0 && col + N <= cols && is_aligned_for<T, N>(p)) {
    store_aligned(p, f);
  } else if constexpr (kOutline) {
    write_partial_vector<T, N>(p, f, col, cols);
  } else {
    write_elements(p, f, col, cols);
  }
}

// Elements [col, col + N) of a parameter vector in the row's dtype that starts on a 16-byte boundary
// and holds `cols` elements (RowParams::params_aligned), for a row at any alignment: its whole
// vectors then meet the parameter `col` mod N elements past a boundary, and read the two aligned
// words they straddle (one where col is a multiple of N). Element by element (zeros outside the
// row) where a vector is partial or its second word would pass the parameter's end.
template <class T, int N>
__device__ __forceinline__ void read_param_vector(Fragment<T, N>& f, const T* param, int col, int cols) {
  const int lead = col % N;  // col >= 0 in the test below, where this is used
  if (col >= 0 && col - lead + (lead == 0 ? N : 2 * N) <= cols) load_straddling(f, param + col);
  else read_elements(f, param + col, col, cols);
}

// Elements [col, col + N) of a parameter in the row's dtype, as kAlign allows: aligned, one aligned
// load; phased, the words the vector straddles (read_param_vector). (General parameters may be of
// any dtype: load_param.)
template <RowAlignment kAlign, class T, int N>
__device__ __forceinline__ void read_param_fragment(Fragment<T, N>& f, const T* param, int col, int cols) {
  static_assert(kAlign != RowAlignment::general, "parameters of any dtype or alignment: load_param");
  if constexpr (kAlign == RowAlignment::aligned) load_aligned(f, param + col);
  else read_param_vector(f, param, col, cols);
}

// Whether a policy's rows go through the epilogue: one without weight and bias takes no
// modulation either (options.hpp), so its kernels (softmax) compile no epilogue code at all.
template <class Policy> inline constexpr bool kHasEpilogue = Policy::kTakesWeight || Policy::kTakesBias;

// y = y * (weight + offset) + bias, then y * (1 + scale[t]) + shift[t] with t = mod_index[row];
// a row whose table index is out of range becomes NaN. Each step is rounded as written here:
// the affine with both weight and bias is one fused multiply-add, as is the modulation, and
// nothing else is contracted (`__fmaf_rn`, `__fmul_rn`, `__fadd_rn`: no FMA the compiler may or may
// not form in one kernel and not another), so the register and staged kernels give the same bits.
//
// kSteps says which steps a loop of vectors takes. kTested: whichever the call asks for, tested
// per vector (the compiler does not take such tests out of the unrolled loops: each vector tested
// weight, offset, bias and modulation again, about 15 instructions and 3 branches). Otherwise the
// steps named, fixed at compile time: the aligned register kernels compile their write loop once
// per common combination (plain_steps) and pick one per row.
namespace epilogue_steps {
inline constexpr unsigned kWeight = 1, kBias = 2, kModulation = 4, kTested = 8;
}

class RowEpilogue {
 public:
  // Row `row`'s index into the modulation table (anything where there is no modulation). The
  // register kernels read it with their row and keep only it through the reductions: the table
  // pointers held instead cost 8-12 registers a thread.
  __device__ static std::int32_t table_index(const RowParams& p, std::int64_t row) {
    return p.mod_index ? p.mod_index[row] : 0;
  }

  __device__ RowEpilogue(const RowParams& p, std::int32_t t) : p_(p) {
    if (!p.mod_index) return;
    if (t < 0 || t >= p.mod_rows) return;  // scale_ stays null: the row becomes NaN
    const std::int64_t offset = std::int64_t(t) * p.mod_stride * std::int64_t(dtype_size(p.mod_dtype));
    scale_ = static_cast<const char*>(p.mod_scale) + offset;
    shift_ = static_cast<const char*>(p.mod_shift) + offset;
  }

  // The steps a row with table index t takes, or kTested where one has a case no fixed loop
  // handles (a weight offset, a table index out of range). RowAgent compiles fixed loops for the
  // common combinations only; the others take the tested loop too.
  __device__ static unsigned plain_steps(const RowParams& p, std::int32_t t) {
    using namespace epilogue_steps;
    if (p.weight_offset != 0.f || (p.mod_index && (t < 0 || t >= p.mod_rows))) return kTested;
    return (p.weight ? kWeight : 0u) | (p.bias ? kBias : 0u) | (p.mod_index ? kModulation : 0u);
  }

  // Parameters in the row's dtype TRow, aligned and whole, take one test and one vector load; the
  // other cases are out of line when kOutline (the cluster and staged kernels, whose unrolled code
  // they made several times larger), else inline (the 2-8 vector kernels, where a call costs
  // registers and a CTA per SM). Same values either way.
  // kAlign: aligned, every parameter is in TRow and vector-aligned (RowParams::vectors_aligned): no
  // tests; phased, the same parameters met at any column (read_param_vector); general, anything.
  // kBiased: whether the policy takes a bias (RMSNorm's kernels then compile no bias code: its
  // tested loop took 8 more registers a thread).
  template <bool kOutline, RowAlignment kAlign, class TRow, unsigned kSteps = epilogue_steps::kTested, bool kBiased = true, int N>
  __device__ void apply(float (&y)[N], int col) const {
    using namespace epilogue_steps;
    const bool weighted = takes<kSteps, kWeight>(p_.weight), biased = kBiased && takes<kSteps, kBias>(p_.bias);
    // Each parameter vector read just before its use (the staged kernels hold 64 registers), and
    // only the weight and bias together held at once.
    if (weighted && biased) {
      float w[N], b[N];
      read<kOutline, kAlign, TRow>(w, p_.weight, p_.weight_dtype, col);
      read<kOutline, kAlign, TRow>(b, p_.bias, p_.bias_dtype, col);
      affine<kSteps, kBiased>(y, w, b, true, true);
    } else if (weighted) {
      float w[N];
      read<kOutline, kAlign, TRow>(w, p_.weight, p_.weight_dtype, col);
      affine<kSteps, kBiased>(y, w, w, true, false);
    } else if (biased) {
      float b[N];
      read<kOutline, kAlign, TRow>(b, p_.bias, p_.bias_dtype, col);
      affine<kSteps, kBiased>(y, b, b, false, true);
    }
    modulate<kOutline, kAlign, TRow, kSteps>(y, col);
  }

  // The same with the weight and bias vectors already loaded (used where given, else ignored).
  template <bool kOutline, RowAlignment kAlign, class TRow, unsigned kSteps = epilogue_steps::kTested, bool kBiased = true, int N>
  __device__ void apply(float (&y)[N], const float (&w)[N], const float (&b)[N], int col) const {
    using namespace epilogue_steps;
    affine<kSteps, kBiased>(y, w, b, takes<kSteps, kWeight>(p_.weight), kBiased && takes<kSteps, kBias>(p_.bias));
    modulate<kOutline, kAlign, TRow, kSteps>(y, col);
  }

  // The parameter lines of the vector starting at column `col` (inside the row) into L1, so that
  // apply() waits on L1: the staged kernels' one-vector-at-a-time loops otherwise wait on L2 for
  // every vector's parameters in turn. (In the register kernels, whose loops are unrolled, it was
  // 1.1x-2x slower than plain loads: RESULTS.md, nineteenth session.)
  __device__ void prefetch(int col) const {
    if (p_.weight) prefetch_l1(static_cast<const char*>(p_.weight) + std::int64_t(col) * dtype_size(p_.weight_dtype));
    if (p_.bias) prefetch_l1(static_cast<const char*>(p_.bias) + std::int64_t(col) * dtype_size(p_.bias_dtype));
    if (scale_) {
      const std::int64_t offset = std::int64_t(col) * dtype_size(p_.mod_dtype);
      prefetch_l1(static_cast<const char*>(scale_) + offset);
      prefetch_l1(static_cast<const char*>(shift_) + offset);
    }
  }

 private:
  // Whether a step is taken: fixed by kSteps, or (kTested) by whether its parameter is given.
  template <unsigned kSteps, unsigned kStep> __device__ static bool takes(const void* param) {
    if constexpr (kSteps == epilogue_steps::kTested) return param != nullptr;
    else return (kSteps & kStep) != 0;
  }

  template <bool kOutline, RowAlignment kAlign, class TRow, int N>
  __device__ void read(float (&out)[N], const void* base, DType t, int col) const {
    if constexpr (kAlign == RowAlignment::general) {
      load_param<TRow, kOutline>(out, base, t, col, p_.cols);
    } else {
      Fragment<TRow, N> f;
      read_param_fragment<kAlign>(f, static_cast<const TRow*>(base), col, p_.cols);
      to_floats(out, f);
    }
  }

  // y * (w + offset) + b, rounded once: the weight alone is y * w + -0 (exactly y * w), the bias
  // alone y * 1 + b (exactly y + b), so every option set takes one fused multiply-add an element
  // and each gives the same bits in every loop. Fixed steps have no offset; the tested loop takes
  // its cases branch-free: branches between two multiply-adds (offset or not) cost the bf16
  // LayerNorm kernels 16 registers a thread, and branches to adjust the weight first 9-10.
  template <unsigned kSteps, bool kBiased, int N>
  __device__ __forceinline__ void affine(float (&y)[N], const float (&w)[N], const float (&b)[N], bool weighted,
                                         bool biased) const {
    if constexpr (kSteps == epilogue_steps::kTested && !kBiased) {
      // No bias (RMSNorm): the plain product, one loop for each case (the selects below cost its
      // aligned bf16 kernel 3 registers a thread, a CTA an SM).
      if (!weighted) return;
      if (p_.weight_offset != 0.f) {
#pragma unroll
        for (int e = 0; e < N; ++e) y[e] = __fmul_rn(y[e], __fadd_rn(w[e], p_.weight_offset));
      } else {
#pragma unroll
        for (int e = 0; e < N; ++e) y[e] = __fmul_rn(y[e], w[e]);
      }
    } else if constexpr (kSteps == epilogue_steps::kTested) {
      // No offset adds -0: w + -0 is w for every w (w + 0 is +0 for w = -0).
      const float offset = p_.weight_offset != 0.f ? p_.weight_offset : -0.f;
#pragma unroll
      for (int e = 0; e < N; ++e) y[e] = __fmaf_rn(y[e], weighted ? __fadd_rn(w[e], offset) : 1.f, biased ? b[e] : -0.f);
    } else if (weighted) {
#pragma unroll
      for (int e = 0; e < N; ++e) y[e] = biased ? __fmaf_rn(y[e], w[e], b[e]) : __fmul_rn(y[e], w[e]);
    } else if (biased) {
#pragma unroll
      for (int e = 0; e < N; ++e) y[e] = __fadd_rn(y[e], b[e]);
    }
  }
  // The NaN of a bad table index (scale_ left null) is set inside the modulation's branch: tested
  // outside it, it cost every element of every call a select.
  template <bool kOutline, RowAlignment kAlign, class TRow, unsigned kSteps, int N>
  __device__ __forceinline__ void modulate(float (&y)[N], int col) const {
    if (!takes<kSteps, epilogue_steps::kModulation>(p_.mod_index)) return;
    if (kSteps != epilogue_steps::kTested || scale_) {  // fixed steps have a table row
      float s[N], h[N];
      read<kOutline, kAlign, TRow>(s, scale_, p_.mod_dtype, col);
      read<kOutline, kAlign, TRow>(h, shift_, p_.mod_dtype, col);
#pragma unroll
      for (int e = 0; e < N; ++e) y[e] = __fmaf_rn(y[e], __fadd_rn(1.f, s[e]), h[e]);
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) y[e] = NAN;
    }
  }

  const RowParams& p_;
  const void* scale_ = nullptr;
  const void* shift_ = nullptr;
};

}  // namespace fusekit::reduce
