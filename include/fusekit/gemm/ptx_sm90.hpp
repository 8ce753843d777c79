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

// The body of a Hopper kernel in a build without sm_90a (a plain sm_90 build reports binary
// version 9.0 too): the launcher never picks such a kernel, and tells it by this static shared
// array (hopper_available: cudaFuncAttributes::sharedSizeBytes; the real bodies have none).
__device__ __forceinline__ void built_without_sm90a() {
  __shared__ volatile unsigned char marker[16];
  marker[threadIdx.x % 16] = 0;
  __trap();
}

// ---- mbarrier: the full/empty handshake of the shared-memory ring (core/mbarrier.cuh) ----
using fusekit::ptx::fence_barrier_init;
using fusekit::ptx::mbarrier_arrive;
using fusekit::ptx::mbarrier_arrive_expect_tx;
using fusekit::ptx::mbarrier_init;
using fusekit::ptx::mbarrier_test_wait;
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

// The same with an L2 eviction priority for the lines it reads (`policy` from the functions below).
__device__ __forceinline__ void tma_load_2d(void* smem, const CUtensorMap* map, std::uint64_t* bar, int inner,
                                            int outer, std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_addr(smem)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "l"(policy)
      : "memory");
}
// A 2-D box of shared memory to (inner, outer) of `map`, as a bulk async-group (parts of the box
// outside the tensor are not written). The writers of the box must first make their writes
// visible to the copy engine (fence_proxy_async, then a barrier).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* smem, int inner, int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(smem_addr(smem)), "r"(inner), "r"(outer)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until the copy engine has read the shared memory of every committed store (it may reuse it).
__device__ __forceinline__ void bulk_wait_group_read_all() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// Waits until every committed store is done (before the CTA exits).
__device__ __forceinline__ void bulk_wait_group_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// Orders this thread's generic-proxy shared-memory writes before later async-proxy (copy engine) reads.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// L2 policies: lines read once (a weight streamed by a one-tile call) leave first; lines every CTA
// reads again (that call's activations) stay. Pure (not volatile): made once, not per copy.
__device__ __forceinline__ std::uint64_t l2_evict_first() {
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ std::uint64_t l2_evict_last() {
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// Warms L2 with `bytes` (a multiple of 16) from the 16-byte aligned global address `p`, lines kept
// as `policy` says; nothing reaches the SM and nothing waits for it (a hint).
__device__ __forceinline__ void prefetch_l2_bulk(const void* p, std::uint32_t bytes, std::uint64_t policy) {
  asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;\n" ::"l"(reinterpret_cast<std::uint64_t>(p)),
               "r"(bytes), "l"(policy)
               : "memory");
}

// Returns the 128-byte L2 line at `line` (128-byte aligned) to normal eviction priority: lines
// brought in as evict_last would otherwise keep it after their last use.
__device__ __forceinline__ void l2_priority_normal(const void* line) {
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;\n" ::"l"(reinterpret_cast<std::uint64_t>(line))
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
// both operands K-major in shared memory; N = 72, 128, 160, 232 or 256 (and the output-only first
// wgmma of a sum below). Inline PTX names every accumulator
// register, so the register and operand lists are spelled out once per size here.
#define FUSEKIT_WGMMA_REGS_36 "{" FUSEKIT_WGMMA_LIST_0_32 ", %32, %33, %34, %35}"
#define FUSEKIT_WGMMA_REGS_64 "{" FUSEKIT_WGMMA_LIST_0_64 "}"
#define FUSEKIT_WGMMA_REGS_80 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_80 "}"
#define FUSEKIT_WGMMA_REGS_128 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_80 ", " FUSEKIT_WGMMA_LIST_80_128 "}"
#define FUSEKIT_WGMMA_REGS_116 "{" FUSEKIT_WGMMA_LIST_0_64 ", " FUSEKIT_WGMMA_LIST_64_116 "}"
#define FUSEKIT_WGMMA_LIST_64_116 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115"
#define FUSEKIT_WGMMA_LIST_0_32 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define FUSEKIT_WGMMA_LIST_0_64 \
  FUSEKIT_WGMMA_LIST_0_32 ", "  \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define FUSEKIT_WGMMA_LIST_64_80 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define FUSEKIT_WGMMA_LIST_80_128 \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define FUSEKIT_WGMMA_D32(C) \
  C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), \
      C(d[8]), C(d[9]), C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15]), \
      C(d[16]), C(d[17]), C(d[18]), C(d[19]), C(d[20]), C(d[21]), C(d[22]), C(d[23]), \
      C(d[24]), C(d[25]), C(d[26]), C(d[27]), C(d[28]), C(d[29]), C(d[30]), C(d[31])
#define FUSEKIT_WGMMA_D64(C) \
  FUSEKIT_WGMMA_D32(C), \
      C(d[32]), C(d[33]), C(d[34]), C(d[35]), C(d[36]), C(d[37]), C(d[38]), C(d[39]), \
      C(d[40]), C(d[41]), C(d[42]), C(d[43]), C(d[44]), C(d[45]), C(d[46]), C(d[47]), \
      C(d[48]), C(d[49]), C(d[50]), C(d[51]), C(d[52]), C(d[53]), C(d[54]), C(d[55]), \
      C(d[56]), C(d[57]), C(d[58]), C(d[59]), C(d[60]), C(d[61]), C(d[62]), C(d[63])
#define FUSEKIT_WGMMA_D80(C) \
  FUSEKIT_WGMMA_D64(C), \
  C(d[64]), C(d[65]), C(d[66]), C(d[67]), C(d[68]), C(d[69]), C(d[70]), C(d[71]), \
      C(d[72]), C(d[73]), C(d[74]), C(d[75]), C(d[76]), C(d[77]), C(d[78]), C(d[79])
#define FUSEKIT_WGMMA_OPERANDS_36 FUSEKIT_WGMMA_D32("+f"), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35])
#define FUSEKIT_WGMMA_OPERANDS_64 FUSEKIT_WGMMA_D64("+f")
#define FUSEKIT_WGMMA_OPERANDS_80 FUSEKIT_WGMMA_D80("+f")
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

// The first wgmma of a sum, m64n160k16 only: D = A * B, D's registers outputs alone, so ptxas
// sees the accumulators' old values die here (with "+f" operands a fragment stays live from one
// tile's sum to the next, through everything in between).
#define FUSEKIT_WGMMA_OUT_80 FUSEKIT_WGMMA_D80("=f")
template <class T>
__device__ __forceinline__ void wgmma_m64n160k16_first(float (&d)[80], std::uint64_t desc_a, std::uint64_t desc_b) {
#ifdef FUSEKIT_SM90A
  if constexpr (std::is_same_v<T, bf16_t>)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 " FUSEKIT_WGMMA_REGS_80 ", %80, %81, p, 1, 1, 0, 0;\n}\n"
                 : FUSEKIT_WGMMA_OUT_80
                 : "l"(desc_a), "l"(desc_b));
  else
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 " FUSEKIT_WGMMA_REGS_80 ", %80, %81, p, 1, 1, 0, 0;\n}\n"
                 : FUSEKIT_WGMMA_OUT_80
                 : "l"(desc_a), "l"(desc_b));
#else
  (void)d, (void)desc_a, (void)desc_b;
#endif
}
#undef FUSEKIT_WGMMA_OUT_80

template <class T, int N>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                             bool accumulate) {
#ifdef FUSEKIT_SM90A
  static_assert(N == 72 || N == 128 || N == 160 || N == 232 || N == 256, "wgmma_m64k16: N is 72, 128, 160, 232 or 256");
  constexpr bool bf16 = std::is_same_v<T, bf16_t>;
  if constexpr (N == 72 && bf16) FUSEKIT_WGMMA(72, "bf16", 36, 38, 36, 37);
  if constexpr (N == 72 && !bf16) FUSEKIT_WGMMA(72, "f16", 36, 38, 36, 37);
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
#undef FUSEKIT_WGMMA_REGS_36
#undef FUSEKIT_WGMMA_REGS_64
#undef FUSEKIT_WGMMA_REGS_80
#undef FUSEKIT_WGMMA_REGS_128
#undef FUSEKIT_WGMMA_OPERANDS_36
#undef FUSEKIT_WGMMA_OPERANDS_64
#undef FUSEKIT_WGMMA_D32
#undef FUSEKIT_WGMMA_D64
#undef FUSEKIT_WGMMA_D80
#undef FUSEKIT_WGMMA_OPERANDS_80
#undef FUSEKIT_WGMMA_OPERANDS_128
#undef FUSEKIT_WGMMA_OPERANDS_116
#undef FUSEKIT_WGMMA_REGS_116
#undef FUSEKIT_WGMMA_LIST_64_116
#undef FUSEKIT_WGMMA_LIST_0_32
#undef FUSEKIT_WGMMA_LIST_0_64
#undef FUSEKIT_WGMMA_LIST_64_80
#undef FUSEKIT_WGMMA_LIST_80_128

}  // namespace fusekit::gemm::ptx
