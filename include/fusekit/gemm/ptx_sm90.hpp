// fusekit/gemm/ptx_sm90.hpp: the Hopper instructions the sm_90a main loop uses (mbarrier,
// bulk tensor copies, wgmma, setmaxnreg, named barriers), one tiny wrapper each, named after
// the PTX instruction. wgmma and setmaxnreg exist only on sm_90a: outside it the wrappers
// compile to nothing and the kernel that calls them traps (the launcher never picks it there).
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

// ---- mbarrier: the full/empty handshake of the shared-memory ring ----
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// Makes initialised barriers visible to the copy engine (async proxy) and to the other warps.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(smem_addr(bar))
               : "memory");
}
// One arrival that also announces `bytes` of copy-engine traffic the phase must wait for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
                   smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
// Spins until the phase with the given parity has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

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

// ---- named barriers: one warpgroup's epilogue syncs without stopping the producer ----
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
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

// D (64 x 128 fp32, this thread's 64 values) = A (64 x 16) * B (16 x 128) + (accumulate ? D : 0),
// both operands K-major in shared memory.
template <class T>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 bool accumulate) {
#ifdef FUSEKIT_SM90A
#define FUSEKIT_WGMMA_M64N128K16(TYPE)                                                                                \
  asm volatile(                                                                                                      \
      "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"                                                                 \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " "                                               \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                      \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                             \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                             \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "                            \
      "%64, %65, p, 1, 1, 0, 0;\n}\n"                                                                                \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),      \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),     \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),     \
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),     \
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),     \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),     \
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                   \
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
  if constexpr (std::is_same_v<T, bf16_t>) {
    FUSEKIT_WGMMA_M64N128K16("bf16");
  } else {
    FUSEKIT_WGMMA_M64N128K16("f16");
  }
#undef FUSEKIT_WGMMA_M64N128K16
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
}

}  // namespace fusekit::gemm::ptx
