// fusekit/gemm/epilogue/activation.hpp: the activation functions epilogues apply, and the
// Activate node (y = act(y) on every element).
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

enum class Activation : std::uint8_t { identity, gelu_tanh, silu };

// Accurate libm forms (no fast-math intrinsics): the epilogue is never the bottleneck.
__device__ __forceinline__ float activate(Activation act, float x) {
  switch (act) {
    case Activation::gelu_tanh: return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case Activation::silu: return x / (1.f + expf(-x));
    case Activation::identity: default: return x;
  }
}

struct Activate {
  struct Params {
    Activation act = Activation::identity;
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    if (p.act == Activation::identity) return;
    for_each_element(t, [&](float& v, int, int) { v = activate(p.act, v); });
  }
};

}  // namespace fusekit::gemm
