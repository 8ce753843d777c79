// fusekit/core/mbarrier.cuh: shared-memory barriers and the bulk copies that complete on them
// (sm_90+), one tiny wrapper each, named after the PTX instruction. The GEMM's TMA ring and the
// row kernels' staged rows both wait on these.
#pragma once

#include <cstdint>

namespace fusekit::ptx {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

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
// Spins until the phase with the given parity has completed (SEM: "" or ".acquire.cluster").
// Expects `bar` and `parity` in scope.
#define FUSEKIT_MBARRIER_WAIT(SEM)                                                     \
  asm volatile("{\n .reg .pred done;\n"                                                \
               "wait_%=:\n"                                                            \
               " mbarrier.try_wait.parity" SEM ".shared::cta.b64 done, [%0], %1;\n"    \
               " @!done bra wait_%=;\n}\n" ::"r"(::fusekit::ptx::smem_addr(bar)),      \
               "r"(parity)                                                             \
               : "memory")
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) { FUSEKIT_MBARRIER_WAIT(""); }
// Whether the phase with the given parity has completed, without waiting (a poll between other work).
__device__ __forceinline__ bool mbarrier_test_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(smem_addr(bar)), "r"(parity)
               : "memory");
  return done != 0;
}

// `bytes` (a multiple of 16) from global to shared memory by the copy engine, both addresses
// 16-byte aligned; completes `bytes` of transaction count on `bar`.
__device__ __forceinline__ void bulk_copy_global_to_shared(void* smem, const void* gmem, std::uint32_t bytes,
                                                           std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_addr(smem)),
               "l"(gmem), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

// `value` into the float at `slot`'s offset in CTA `rank` of this cluster (this CTA included),
// completing its 4 bytes on the barrier at `bar`'s offset in that CTA (sm_90+).
__device__ __forceinline__ void st_async_to_rank(const float* slot, const std::uint64_t* bar, unsigned rank,
                                                 float value) {
  asm volatile(
      "{\n .reg .b32 dst, remote_bar;\n mapa.shared::cluster.u32 dst, %0, %2;\n"
      " mapa.shared::cluster.u32 remote_bar, %1, %2;\n"
      " st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [dst], %3, [remote_bar];\n}\n" ::"r"(smem_addr(slot)),
      "r"(smem_addr(bar)), "r"(rank), "r"(__float_as_uint(value))
      : "memory");
}

}  // namespace fusekit::ptx
