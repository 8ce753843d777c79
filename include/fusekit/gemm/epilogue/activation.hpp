// fusekit/gemm/epilogue/activation.hpp: the activation functions epilogues apply, and the
// Activate node (y = act(y) on every element).
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

enum class Activation : std::uint8_t { identity, gelu_tanh, silu };

// silu (fc1's SwiGLU, once per output element) in MUFU forms: an accurate `expf` and an IEEE
// division take a couple of dozen instructions and a branch an element, in an epilogue the
// tensor cores wait on.
// `__expf` errs by at most 2 + 1.2 |x| ulp and `__fdividef` by 2 ulp (a denominator past 2^126,
// x < -87, gives 0 where the exact value is below 2e-36): far below the output's 2^-8.
// gelu_tanh stays in the accurate libm form (no H3 call applies it in a GEMM epilogue).
__device__ __forceinline__ float activate(Activation act, float x) {
  switch (act) {
    case Activation::gelu_tanh: return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case Activation::silu: return __fdividef(x, 1.f + __expf(-x));
    case Activation::identity: default: return x;
  }
}

struct Activate {
  static constexpr bool kColumnLocal = true;  // epilogue.hpp
  struct Params {
    Activation act = Activation::identity;
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    if (p.act == Activation::identity) return;
    for_each_element(t, [&](float& v, int, int) { v = activate(p.act, v); });
  }
};

}  // namespace fusekit::gemm
