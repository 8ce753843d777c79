// benchmark/harness/ceilings.hpp: the two ceilings every result is quoted against, measured once
// per process. Internal to the harness; cases read them through fusekit::bench::ceilings().
#pragma once

#include "harness.hpp"

namespace fusekit::bench::detail {

// Measured on the H200 test machine (../shared/docs/targets.md); used when measurement is skipped.
inline constexpr double kAssumedCopyGbps = 4240;
inline constexpr double kAssumedGemmTflops = 820;

// Device-to-device copy of 1 GiB (bytes read + written) and bf16 GEMM 8192^3 through cuBLASLt
// (fp32 accumulation, random inputs); the median of 10 timed runs each, after warm-up.
Ceilings measure_ceilings(cudaStream_t stream);

}  // namespace fusekit::bench::detail
