// fusekit/core/dtype.hpp: element types and their conversions to and from fp32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define FUSEKIT_HD __host__ __device__ __forceinline__
#else
#define FUSEKIT_HD inline
#endif

namespace fusekit {

using bf16_t = __nv_bfloat16;
using fp16_t = __half;

enum class DType : std::uint8_t { f32, f16, bf16 };

FUSEKIT_HD constexpr std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }

// A DType holds one of the three enumerators (a value cast from an integer may not): every entry
// point checks this before it trusts dtype_size, which reads any other value as 2 bytes.
constexpr bool dtype_valid(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }

constexpr const char* dtype_name(DType t) {
  return t == DType::f32 ? "f32" : t == DType::f16 ? "f16" : "bf16";
}

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<fp16_t> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<bf16_t> { static constexpr DType value = DType::bf16; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

// fp32 <-> element conversions with round-to-nearest-even, usable on host and device.
FUSEKIT_HD float to_float(float x) { return x; }
FUSEKIT_HD float to_float(fp16_t x) { return __half2float(x); }
FUSEKIT_HD float to_float(bf16_t x) { return __bfloat162float(x); }

template <class T> FUSEKIT_HD T from_float(float x);
template <> FUSEKIT_HD float from_float<float>(float x) { return x; }
template <> FUSEKIT_HD fp16_t from_float<fp16_t>(float x) { return __float2half_rn(x); }
template <> FUSEKIT_HD bf16_t from_float<bf16_t>(float x) { return __float2bfloat16_rn(x); }

// Calls f(T{}) with T the C++ type of a runtime dtype; the one place that switches on DType.
template <class F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f16: return f(fp16_t{});
    case DType::bf16: return f(bf16_t{});
    case DType::f32: default: return f(float{});
  }
}

}  // namespace fusekit
