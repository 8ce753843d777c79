// fusekit/gemm/epilogue/bias.hpp: y += bias[w_row], one entry per W row (nn.Linear's bias).
// Indexed by W row, so it is also right before a GLU node, whose tile mixes two W halves.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

namespace fusekit::gemm {

template <class T> struct Bias {
  static constexpr bool kColumnLocal = true;  // epilogue.hpp
  struct Params {
    const T* bias = nullptr;  // null: no bias
  };
  // One accumulator of W row w_row, in registers (the fragment form: epilogue.hpp).
  __device__ static float visit(const Params& p, float v, std::int64_t w_row) {
    return p.bias == nullptr ? v : v + to_float(p.bias[w_row]);
  }
  __device__ static void apply(const Params& p, AccTile& t) {
    if (p.bias == nullptr) return;
    // A column with no W row behind it has no bias entry either: with W = [value; gate] its
    // weight_row would lie past the end of the bias vector.
    for_each_element(t, [&](float& v, int, int c) {
      if (t.has_weight_row(c)) v = visit(p, v, t.weight_row(c));
    });
  }
};

}  // namespace fusekit::gemm
