// fusekit/gemm/instances.hpp: the entry points' kernels compiled once for a whole program.
//
// Every call of an entry point compiles its kernels (both 16-bit input types, both output types,
// every tile kind: 36 kernels an entry point) in the translation unit that makes it, which takes
// minutes per file. A translation unit that includes this header declares the four entry points'
// instances extern, and the launches of their epilogues (launch_gemm<T, LinearEpilogue<T, OutT>>
// and the like, which code with its own epilogue list may also call), and compiles none of them.
// The program then defines each entry point's in one translation unit of its own, where these
// macros pick which (four files compile in parallel):
//
//   // gemm_linear.cu (likewise FUSEKIT_GEMM_DEFINE_LINEAR_GLU, _LINEAR_RESIDUAL, _LINEAR_QKV)
//   #define FUSEKIT_GEMM_DEFINE_LINEAR
//   #include <fusekit/gemm/instances.hpp>
//
// CMake does that with `fusekit_add_gemm_instances(<target>)` (cmake/FusekitInstances.cmake).
// The presets (presets.hpp) call these entry points, so they need no instances of their own.
// Without this header every translation unit compiles what it calls, as before: same kernels,
// same bits.
#pragma once

#include "fusekit/gemm/linear.hpp"

// One epilogue's launches for the four (input, output) type pairs: `template` or `extern template`.
#define FUSEKIT_GEMM_LAUNCHES(kind, EPI)                                                                      \
  kind Status launch_gemm<bf16_t, EPI<bf16_t, bf16_t>>(const GemmOperands<bf16_t>&,                          \
                                                       const EPI<bf16_t, bf16_t>::Params&, const DeviceInfo&, \
                                                       cudaStream_t);                                        \
  kind Status launch_gemm<bf16_t, EPI<bf16_t, float>>(const GemmOperands<bf16_t>&,                           \
                                                      const EPI<bf16_t, float>::Params&, const DeviceInfo&,   \
                                                      cudaStream_t);                                         \
  kind Status launch_gemm<fp16_t, EPI<fp16_t, fp16_t>>(const GemmOperands<fp16_t>&,                          \
                                                       const EPI<fp16_t, fp16_t>::Params&, const DeviceInfo&, \
                                                       cudaStream_t);                                        \
  kind Status launch_gemm<fp16_t, EPI<fp16_t, float>>(const GemmOperands<fp16_t>&,                           \
                                                      const EPI<fp16_t, float>::Params&, const DeviceInfo&,   \
                                                      cudaStream_t)

namespace fusekit::gemm {

#ifdef FUSEKIT_GEMM_DEFINE_LINEAR
FUSEKIT_GEMM_LAUNCHES(template, LinearEpilogue);
template Status linear<0>(const ConstRows&, const ConstRows&, const Rows&, const LinearOptions&, cudaStream_t);
#else
FUSEKIT_GEMM_LAUNCHES(extern template, LinearEpilogue);
extern template Status linear<0>(const ConstRows&, const ConstRows&, const Rows&, const LinearOptions&, cudaStream_t);
#endif

#ifdef FUSEKIT_GEMM_DEFINE_LINEAR_GLU
FUSEKIT_GEMM_LAUNCHES(template, GluEpilogue);
template Status linear_glu<0>(const ConstRows&, const ConstRows&, const Rows&, const GluOptions&, cudaStream_t);
#else
FUSEKIT_GEMM_LAUNCHES(extern template, GluEpilogue);
extern template Status linear_glu<0>(const ConstRows&, const ConstRows&, const Rows&, const GluOptions&,
                                     cudaStream_t);
#endif

#ifdef FUSEKIT_GEMM_DEFINE_LINEAR_RESIDUAL
FUSEKIT_GEMM_LAUNCHES(template, ResidualEpilogue);
template Status linear_residual<0>(const ConstRows&, const ConstRows&, const ConstRows&, const Rows&,
                                   const ResidualOptions&, cudaStream_t);
#else
FUSEKIT_GEMM_LAUNCHES(extern template, ResidualEpilogue);
extern template Status linear_residual<0>(const ConstRows&, const ConstRows&, const ConstRows&, const Rows&,
                                          const ResidualOptions&, cudaStream_t);
#endif

#ifdef FUSEKIT_GEMM_DEFINE_LINEAR_QKV
FUSEKIT_GEMM_LAUNCHES(template, QkvEpilogue);
template Status linear_qkv<0>(const ConstRows&, const ConstRows&, const QkvOutputs&, const QkvOptions&, cudaStream_t);
#else
FUSEKIT_GEMM_LAUNCHES(extern template, QkvEpilogue);
extern template Status linear_qkv<0>(const ConstRows&, const ConstRows&, const QkvOutputs&, const QkvOptions&,
                                     cudaStream_t);
#endif

}  // namespace fusekit::gemm

#undef FUSEKIT_GEMM_LAUNCHES
