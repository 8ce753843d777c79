// fusekit/gemm/ptx_sm90.hpp: the Hopper instructions the sm_90a main loop uses (mbarrier,
// bulk tensor copies, wgmma, setmaxnreg; the epilogue's named barrier is AccTile::sync), one
// tiny wrapper each, named after the PTX instruction. wgmma and setmaxnreg exist only on sm_90a:
// outside it the wrappers compile to nothing and the kernel that calls them traps (the launcher
// never picks it there).
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/ptx_sm80.hpp"

#include <cuda.h>  // CUtensorMap (a type only: nothing links against libcuda)

#include <cstdint>
#include <type_traits>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FUSEKIT_SM90A 1
#endif

namespace fusekit::gemm::ptx {

// ---- mbarrier: the full/empty handshake of the shared-memory ring (core/mbarrier.cuh) ----
using fusekit::ptx::fence_barrier_init;
using fusekit::ptx::mbarrier_arrive;
using fusekit::ptx::mbarrier_arrive_expect_tx;
using fusekit::ptx::mbarrier_init;
using fusekit::ptx::mbarrier_wait;

// ---- bulk tensor copy (TMA) ----
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}
// A 2-D box at (inner, outer) of `map` into shared memory; completes `bytes` on `bar`.
// Parts of the box outside the tensor arrive as zeros.
__device__ __forceinline__ void tma_load_2d(void* smem, const CUtensorMap* map, std::uint64_t* bar, int inner,
                                            int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          smem_addr(smem)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer)
      : "memory");
}

// ---- register reallocation between producer and consumer warpgroups ----
template <int Regs> __device__ __forceinline__ void setmaxnreg_dec() {
#ifdef FUSEKIT_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}
template <int Regs> __device__ __forceinline__ void setmaxnreg_inc() {
#ifdef FUSEKIT_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}

// ---- wgmma ----
// Shared-memory matrix descriptor of a K-major tile written by TMA with 128-byte swizzle:
// rows of 64 16-bit elements (128 bytes), 8-row groups 1024 bytes apart.
__device__ __forceinline__ std::uint64_t smem_descriptor_sw128(const void* p) {
  std::uint64_t d = 0;
  d |= std::uint64_t((smem_addr(p) & 0x3FFFF) >> 4);  // start address
  d |= std::uint64_t(1) << 16;                          // leading byte offset (unused when swizzled)
  d |= std::uint64_t(1024 >> 4) << 32;                  // stride byte offset: next 8-row group
  d |= std::uint64_t(1) << 62;                          // 128-byte swizzle
  return d;
}

__device__ __forceinline__ void wgmma_fence() {
#ifdef FUSEKIT_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit_group() {
#ifdef FUSEKIT_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int Pending> __device__ __forceinline__ void wgmma_wait_group() {
#ifdef FUSEKIT_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#endif
}
// Keeps the compiler from moving accumulator reads/writes across an in-flight wgmma.
__device__ __forceinline__ void fence_registers(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// D (64 x N fp32; this thread holds N / 2 of them) = A (64 x 16) * B (16 x N) + (accumulate ? D : 0),
// both operands K-major in shared memory; N = 128, 160 or 256. Inline PTX names every accumulator
// register, so the register and operand lists are spelled out once per size here.
#define FUSEKIT_WGMMA_REGS_64 "{" FUSEKIT_WGMMA_LIST_0_64 "}"
#define FUSEKIT_WGMMA_REGS_80 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_80 "}"
#define FUSEKIT_WGMMA_REGS_128 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_80 ", " FUSEKIT_WGMMA_LIST_80_128 "}"
#define FUSEKIT_WGMMA_REGS_116 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_116 "}"
#define FUSEKIT_WGMMA_LIST_64_116 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115"
#define FUSEKIT_WGMMA_LIST_0_64 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "  \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define FUSEKIT_WGMMA_LIST_64_80 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define FUSEKIT_WGMMA_LIST_80_128 \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define FUSEKIT_WGMMA_OPERANDS_64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define FUSEKIT_WGMMA_OPERANDS_80 \
  FUSEKIT_WGMMA_OPERANDS_64, \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define FUSEKIT_WGMMA_OPERANDS_116 \
  FUSEKIT_WGMMA_OPERANDS_64, \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
#define FUSEKIT_WGMMA_OPERANDS_128 \
  FUSEKIT_WGMMA_OPERANDS_80, \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define FUSEKIT_WGMMA(N, TYPE, VALUES, PRED, DESC_A, DESC_B)                                                        \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" #PRED ", 0;\n"                                               \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " FUSEKIT_WGMMA_REGS_##VALUES     \
               ", %" #DESC_A ", %" #DESC_B ", p, 1, 1, 0, 0;\n}\n"                                                  \
               : FUSEKIT_WGMMA_OPERANDS_##VALUES                                                               \
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)))

template <class T, int N>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                             bool accumulate) {
#ifdef FUSEKIT_SM90A
  static_assert(N == 128 || N == 160 || N == 232 || N == 256, "wgmma_m64k16: N is 128, 160, 232 or 256");
  constexpr bool bf16 = std::is_same_v<T, bf16_t>;
  if constexpr (N == 128 && bf16) FUSEKIT_WGMMA(128, "bf16", 64, 66, 64, 65);
  if constexpr (N == 128 && !bf16) FUSEKIT_WGMMA(128, "f16", 64, 66, 64, 65);
  if constexpr (N == 160 && bf16) FUSEKIT_WGMMA(160, "bf16", 80, 82, 80, 81);
  if constexpr (N == 160 && !bf16) FUSEKIT_WGMMA(160, "f16", 80, 82, 80, 81);
  if constexpr (N == 232 && bf16) FUSEKIT_WGMMA(232, "bf16", 116, 118, 116, 117);
  if constexpr (N == 232 && !bf16) FUSEKIT_WGMMA(232, "f16", 116, 118, 116, 117);
  if constexpr (N == 256 && bf16) FUSEKIT_WGMMA(256, "bf16", 128, 130, 128, 129);
  if constexpr (N == 256 && !bf16) FUSEKIT_WGMMA(256, "f16", 128, 130, 128, 129);
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
}
#undef FUSEKIT_WGMMA
#undef FUSEKIT_WGMMA_REGS_64
#undef FUSEKIT_WGMMA_REGS_80
#undef FUSEKIT_WGMMA_REGS_128
#undef FUSEKIT_WGMMA_OPERANDS_64
#undef FUSEKIT_WGMMA_OPERANDS_80
#undef FUSEKIT_WGMMA_OPERANDS_128
#undef FUSEKIT_WGMMA_LIST_0_64
#undef FUSEKIT_WGMMA_LIST_64_80
#undef FUSEKIT_WGMMA_LIST_80_128

}  // namespace fusekit::gemm::ptx
