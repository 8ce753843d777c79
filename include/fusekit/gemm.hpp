// fusekit/gemm.hpp: GEMMs with fused epilogues, Y = A * W^T (W in nn.Linear layout).
//   linear, linear_glu, linear_residual, linear_qkv   building blocks (gemm/linear.hpp)
//   qkv_proj, out_proj, fc1_swiglu, fc2               the MiniMax-H3 block's linears (gemm/presets.hpp)
//   launch_gemm<T, Epilogue<Nodes...>>                your own epilogue (gemm/kernel.hpp, gemm/epilogue/)
#pragma once

#include "fusekit/gemm/linear.hpp"
#include "fusekit/gemm/presets.hpp"
