// fusekit/gemm/operands.hpp: what a main loop reads. Y = A * W^T with A row-major [m, k]
// (activations) and W row-major [n, k] (nn.Linear / checkpoint layout, no transposes).
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class T> struct GemmOperands {
  const T* a = nullptr;
  const T* w = nullptr;
  std::int64_t m = 0, n = 0, k = 0;  // n = rows of W
  std::int64_t lda = 0, ldw = 0;     // elements between rows
};

// Which rows of W feed one CTA's N-tile. The tile's accumulator columns [0, half) come from W
// rows first[0] + c, columns [half, 2*half) from first[1] + c - half; rows past count[i] read as
// zero. Two independent halves let a GLU tile hold the gate and value columns of the same
// outputs; a plain tile is simply first[1] = first[0] + half.
struct WeightRows {
  std::int64_t first[2] = {0, 0};
  int count[2] = {0, 0};
};

// The default column source: N-tile t covers W rows [t * tile_n, (t + 1) * tile_n).
struct ContiguousColumns {
  static constexpr std::int64_t n_tiles(std::int64_t n, int tile_n) { return (n + tile_n - 1) / tile_n; }
  FUSEKIT_HD static WeightRows weight_rows(std::int64_t n, int tile_n, std::int64_t t) {
    const int half = tile_n / 2;
    const std::int64_t n0 = t * tile_n;
    auto clamp = [half](std::int64_t v) { return static_cast<int>(v < 0 ? 0 : v > half ? half : v); };
    WeightRows r;
    r.first[0] = n0;
    r.first[1] = n0 + half;
    r.count[0] = clamp(n - n0);
    r.count[1] = clamp(n - n0 - half);
    return r;
  }
};

}  // namespace fusekit::gemm
