// fusekit/core/vector_io.cuh: 16-byte vector loads and stores, and element-wise fallbacks.
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cstdint>
#include <type_traits>

namespace fusekit {

// A register fragment of N elements, aligned so it can be moved as whole words.
template <class T, int N> struct alignas(16) Fragment {
  T v[N];
};

namespace detail {
template <int kBytes> struct word;
template <> struct word<2> { using type = unsigned short; };
template <> struct word<4> { using type = unsigned int; };
template <> struct word<8> { using type = uint2; };
template <> struct word<16> { using type = uint4; };
template <int kBytes> using word_t = typename word<kBytes>::type;
}  // namespace detail

// Copies N elements between global memory and a fragment in the widest words (up to 16 bytes).
// Precondition: `p` is aligned to min(16, N * sizeof(T)) bytes.
template <class T, int N> __device__ __forceinline__ void load_aligned(Fragment<T, N>& f, const T* p) {
  constexpr int kBytes = N * int(sizeof(T));
  constexpr int kWord = kBytes < 16 ? kBytes : 16;
  using W = detail::word_t<kWord>;
#pragma unroll
  for (int i = 0; i < kBytes / kWord; ++i) reinterpret_cast<W*>(f.v)[i] = reinterpret_cast<const W*>(p)[i];
}

// Whole 16-byte words are copied out of the fragment as uint4 values first: stored straight from a
// fragment assembled by packed conversions, nvcc split each into four 4-byte stores (ncu on the
// row kernels: 4x the store instructions, 60% excess L2 sectors; no measurable time, though).
// kOneRegister (sm_90 code): each word is moved into one 128-bit register and stored from it
// (st.global.b128), which ptxas never splits; it still split some uint4 stores of the staged
// kernels (76% excess L2 sectors on the sliced softmax, thirty-first session). Measured on the H100
// (RESULTS.md, forty-first session): the staged kernels' rows 1.01-1.11x, but the register kernels
// 0.92-0.99x, so only the staged kernels ask for it. No memory clobber: its callers write only
// after their last read of what they write (the row kernels' in-place rule).
template <bool kOneRegister = false, class T, int N>
__device__ __forceinline__ void store_aligned(T* p, const Fragment<T, N>& f) {
  constexpr int kBytes = N * int(sizeof(T));
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i) {
      uint4 w;
      __builtin_memcpy(&w, reinterpret_cast<const unsigned char*>(f.v) + 16 * i, 16);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      if constexpr (kOneRegister) {
        asm volatile("{\n .reg .b128 word;\n mov.b128 word, {%1, %2, %3, %4};\n st.global.b128 [%0], word;\n}\n" ::"l"(
                         reinterpret_cast<uint4*>(p) + i),
                     "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w));
        continue;
      }
#endif
      reinterpret_cast<uint4*>(p)[i] = w;
    }
  } else {
    constexpr int kWord = kBytes < 16 ? kBytes : 16;
    using W = detail::word_t<kWord>;
#pragma unroll
    for (int i = 0; i < kBytes / kWord; ++i) reinterpret_cast<W*>(p)[i] = reinterpret_cast<const W*>(f.v)[i];
  }
}

template <class T, int N> __device__ __forceinline__ bool is_aligned_for(const T* p) {
  constexpr int kBytes = N * int(sizeof(T));
  constexpr int kWord = kBytes < 16 ? kBytes : 16;
  return reinterpret_cast<std::uintptr_t>(p) % kWord == 0;
}

// The 16 bytes that start `offset` bytes (0..15) into the 32 bytes of words[0..8): what a load
// `offset` bytes past a 16-byte boundary reads, put together from the two aligned words it
// straddles. The word offset picks the words through a switch (registers cannot be indexed; the
// offset is the same for every vector of a row, so the branches do not diverge), the byte offset
// within a word through one funnel shift a word. Two rounds of selects instead (branch-free, 10
// SEL) took 4 more registers a thread and spilled 4 bytes in three bf16 RMSNorm kernels (ptxas).
// Host code too: the CPU tests try every offset.
FUSEKIT_HD void straddled_words(const std::uint32_t (&w)[8], unsigned offset, std::uint32_t (&out)[4]) {
  const unsigned bits = (offset % 4) * 8;
  auto take = [&](int first) {  // four fixed trips: unrolled without a pragma (host code too)
    for (int j = 0; j < 4; ++j)
      out[j] = std::uint32_t(((std::uint64_t(w[first + j + 1]) << 32) | w[first + j]) >> bits);
  };
  switch (offset / 4) {
    case 0: take(0); break;
    case 1: take(1); break;
    case 2: take(2); break;
    default: take(3); break;
  }
}

// The 16 bytes at p, which is aligned to its element but maybe not to 16 bytes, as two aligned
// 16-byte loads (one when p is aligned) and straddled_words. Precondition: the 32 bytes from p
// rounded down to 16 lie inside p's allocation (the callers test that against the row's length).
template <class T, int N> __device__ __forceinline__ void load_straddling(Fragment<T, N>& f, const T* p) {
  static_assert(N * sizeof(T) == 16, "one 16-byte vector");
  const unsigned offset = unsigned(reinterpret_cast<std::uintptr_t>(p) % 16);
  // Stepped back from p, not rebuilt from the integer: nvcc then still knows the pointer global
  // (from the integer it issued generic LD.E.128, not LDG.E.128).
  const uint4* base = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned char*>(p) - offset);
  const uint4 lo = base[0];
  if (offset == 0) {
    __builtin_memcpy(f.v, &lo, 16);
    return;
  }
  const uint4 hi = base[1];
  const std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  std::uint32_t out[4];
  straddled_words(w, offset, out);
  __builtin_memcpy(f.v, out, 16);
}

// Fragment <-> fp32 registers. 16-bit types convert two elements per instruction where they can.
// bf16 -> fp32 is exact bit placement: one shift or mask per element, where nvcc's per-element
// conversion took a byte permute and a multiply (measured in the row kernels' SASS).
template <class T, int N> __device__ __forceinline__ void to_floats(float (&out)[N], const Fragment<T, N>& f) {
  if constexpr (N % 2 == 0 && std::is_same_v<T, bf16_t>) {
#pragma unroll
    for (int e = 0; e < N; e += 2) {
      unsigned pair;
      __builtin_memcpy(&pair, &f.v[e], 4);
      out[e] = __uint_as_float(pair << 16);
      out[e + 1] = __uint_as_float(pair & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = to_float(f.v[e]);
  }
}
// N elements at p, aligned as load_aligned requires, as fp32.
template <class T, int N> __device__ __forceinline__ void load_aligned_as_floats(float (&out)[N], const T* p) {
  Fragment<T, N> f;
  load_aligned(f, p);
  to_floats(out, f);
}
template <class T, int N> __device__ __forceinline__ void from_floats(Fragment<T, N>& f, const float (&in)[N]) {
  if constexpr (N % 2 == 0 && std::is_same_v<T, bf16_t>) {
#pragma unroll
    for (int e = 0; e < N; e += 2)
      *reinterpret_cast<__nv_bfloat162*>(&f.v[e]) = __floats2bfloat162_rn(in[e], in[e + 1]);
  } else if constexpr (N % 2 == 0 && std::is_same_v<T, fp16_t>) {
#pragma unroll
    for (int e = 0; e < N; e += 2) *reinterpret_cast<__half2*>(&f.v[e]) = __floats2half2_rn(in[e], in[e + 1]);
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) f.v[e] = from_float<T>(in[e]);
  }
}

// 2^x with the hardware approximation (about 2 ulp; subnormal results flush to zero).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// One element of a runtime dtype, as fp32 (for small parameter vectors of any dtype).
__device__ __forceinline__ float load_as_float(const void* p, DType t, std::int64_t i) {
  switch (t) {
    case DType::f16: return to_float(static_cast<const fp16_t*>(p)[i]);
    case DType::bf16: return to_float(static_cast<const bf16_t*>(p)[i]);
    default: return static_cast<const float*>(p)[i];
  }
}

template <int N> struct FloatVector {
  float v[N];
};

// The element-by-element case of load_as_float: the elements of [c0, c0 + N) inside [0, n).
template <class T, int N>
__device__ __forceinline__ FloatVector<N> load_elements_as_float(const T* p, std::int64_t c0, std::int64_t n) {
  FloatVector<N> out;
#pragma unroll
  for (int e = 0; e < N; ++e) out.v[e] = (c0 + e >= 0 && c0 + e < n) ? to_float(p[e]) : 0.f;
  return out;
}
// N consecutive elements [c0, c0 + N) of a runtime-dtype vector as fp32; the elements outside
// [0, n) are not read. Whole aligned runs use vector loads.
template <int N>
__device__ __forceinline__ void load_as_float(float (&out)[N], const void* base, DType t, std::int64_t c0,
                                              std::int64_t n) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(base) + c0;
    if (c0 >= 0 && c0 + N <= n && is_aligned_for<T, N>(p)) {
      Fragment<T, N> f;
      load_aligned(f, p);
#pragma unroll
      for (int e = 0; e < N; ++e) out[e] = to_float(f.v[e]);
    } else {
      const FloatVector<N> slow = load_elements_as_float<T, N>(p, c0, n);
#pragma unroll
      for (int e = 0; e < N; ++e) out[e] = slow.v[e];
    }
  };
  switch (t) {
    case DType::f16: run(fp16_t{}); break;
    case DType::bf16: run(bf16_t{}); break;
    default: run(float{}); break;
  }
}

// N elements [c0, c0 + N) of a runtime-dtype vector as fp32, out of line (any dtype, alignment or
// partial vector): the cold path of load_param.
template <int N>
__device__ __noinline__ FloatVector<N> load_any_as_float(const void* base, DType t, std::int64_t c0, std::int64_t n) {
  FloatVector<N> out;
  load_as_float(out.v, base, t, c0, n);
  return out;
}

// Asks for the cache line holding `p` in L1, without waiting for it: a later load of it then
// waits on L1 instead of L2. A hint only; `p` must point into an allocation.
__device__ __forceinline__ void prefetch_l1(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

// Elements [c0, c0 + N) of a parameter vector as fp32. Parameters in the dtype TFast (the row's
// own), 16-byte aligned and inside [0, n), take one inline vector load after one test; anything
// else goes through load_as_float, out of line when kOutline (inlined for every dtype, alignment
// and tail in every unrolled vector, those reads were most of the cluster kernel's code:
// benchmark/RESULTS.md, step 9).
template <class TFast, bool kOutline, int N>
__device__ __forceinline__ void load_param(float (&out)[N], const void* base, DType t, std::int64_t c0, std::int64_t n) {
  const TFast* p = static_cast<const TFast*>(base) + c0;
  if (t == dtype_v<TFast> && c0 >= 0 && c0 + N <= n && is_aligned_for<TFast, N>(p)) {
    load_aligned_as_floats(out, p);
  } else if constexpr (kOutline) {
    const FloatVector<N> v = load_any_as_float<N>(base, t, c0, n);
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = v.v[e];
  } else {
    load_as_float(out, base, t, c0, n);
  }
}

}  // namespace fusekit
