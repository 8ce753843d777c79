// fusekit/gemm/epilogue/residual.hpp: residual add, y = residual + y, or gated residual,
// y = residual + gate[idx[row]] * y with a per-row index into a small table (adaLN's gate_msa /
// gate_mlp rows). residual may be the output buffer itself: each element is read before the
// store node writes it, and no other CTA touches it.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class R, class G> struct AddResidual {
  struct Params {
    const R* residual = nullptr;
    std::int64_t ld_residual = 0;
    const G* gate = nullptr;  // null: plain residual add
    std::int64_t ld_gate = 0;
    const std::int32_t* idx = nullptr;  // gate row of each output row
    std::int64_t gate_rows = 0;
  };
  __device__ static void apply(const Params& p, AccTile& t) {
    for_each_element(t, [&](float& v, int r, int c) {
      const std::int64_t row = t.row0 + r, col = t.col0 + c;
      float g = 1.f;
      if (p.gate != nullptr) {
        const std::int32_t i = p.idx[row];
        // An index outside the table cannot be checked on the host without a copy; make it loud.
        g = (i >= 0 && i < p.gate_rows) ? to_float(p.gate[i * p.ld_gate + col]) : __int_as_float(0x7fc00000);
      }
      v = to_float(p.residual[row * p.ld_residual + col]) + g * v;
    });
  }
};

}  // namespace fusekit::gemm
