// fusekit/gemm/ptx_sm80.hpp: the sm_80+ instructions the portable main loop uses, one tiny
// wrapper each, named after the PTX instruction. Everything above this file reads as C++.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/core/mbarrier.cuh"

#include <cstdint>

namespace fusekit::gemm::ptx {

using fusekit::ptx::smem_addr;

// cp.async.cg 16 bytes global -> shared; when !valid the 16 shared bytes are zero-filled
// (src-size 0) so out-of-range rows and k-chunks contribute nothing to the dot products.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
               "r"(valid ? 16 : 0)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `Pending` committed groups are still in flight.
template <int Pending> __device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// ldmatrix.x4: four 8x8 b16 matrices; lane i supplies the row address of matrix i / 8.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem)));
}

// D += A * B with A 16x16 (row), B 16x8 (col), fp32 accumulators, in place.
template <class T> __device__ void mma_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]);

template <>
__device__ __forceinline__ void mma_m16n8k16<bf16_t>(float (&d)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <>
__device__ __forceinline__ void mma_m16n8k16<fp16_t>(float (&d)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace fusekit::gemm::ptx
