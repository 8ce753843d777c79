// Argument-check tests of the GEMM entry points (CPU, run in CI): host memory stands in for
// device pointers, which validation never dereferences. Each entry point's checks live in the
// translation unit of its GPU tests; the kernels are compiled once, in fusekit_gemm_instances.
#pragma once

#include <doctest/doctest.h>

#include "fusekit/gemm.hpp"
#include "support/gpu.hpp"

#include <cstddef>
#include <cstdint>

namespace fusekit::test::validation {

alignas(256) inline unsigned char arena[1 << 20];
inline void* at(std::size_t byte) { return arena + byte; }

inline constexpr std::int64_t M = 4, K = 16, N = 24;
inline ConstRows a_ok() { return {at(0), DType::bf16, M, K, 0}; }
inline ConstRows w_ok() { return {at(4096), DType::bf16, N, K, 0}; }
inline Rows out_ok() { return {at(16384), DType::bf16, M, N, 0}; }

}  // namespace fusekit::test::validation

// A call whose arguments are all valid must get past validation. Without a GPU the next step,
// the device query, fails with cuda_error; with a GPU the call would launch on these host
// pointers, so it is not made (the GPU test cases cover valid calls there).
#define CHECK_PASSES_VALIDATION(call)                                                    \
  do {                                                                                   \
    if (::fusekit::test::no_gpu()) CHECK((call).code() == ::fusekit::Errc::cuda_error); \
  } while (0)
