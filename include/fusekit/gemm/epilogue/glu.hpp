// fusekit/gemm/epilogue/glu.hpp: gated linear unit, out = act(gate) * value, where gate and
// value are the two row halves of W. This node chooses the W rows: each CTA multiplies the
// gate rows and the value rows of the same 64 output columns, so the pair meets in one tile.
#pragma once

#include "fusekit/gemm/epilogue/activation.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/operands.hpp"

#include <cstdint>

namespace fusekit::gemm {

enum class GluOrder : std::uint8_t {
  gate_value,  // W = [gate; value]: the native MiniMax-H3 layout
  value_gate,  // W = [value; gate]: the diffusers layout (ff.net.0.proj)
};

struct Glu {
  struct Params {
    Activation act = Activation::silu;
    GluOrder order = GluOrder::gate_value;
  };

  // n = rows of W = 2 * output columns.
  static std::int64_t n_tiles(const Params&, std::int64_t n, int tile_n) {
    return (n / 2 + tile_n / 2 - 1) / (tile_n / 2);
  }
  // Tile half 0 <- gate rows, half 1 <- value rows, whatever the order in W.
  FUSEKIT_HD static WeightRows weight_rows(const Params& p, std::int64_t n, int tile_n, std::int64_t t) {
    const std::int64_t n_out = n / 2, c0 = t * (tile_n / 2);
    const std::int64_t left = n_out - c0;
    const int count = static_cast<int>(left < tile_n / 2 ? left : tile_n / 2);
    const std::int64_t gate = p.order == GluOrder::gate_value ? 0 : n_out;
    const std::int64_t value = p.order == GluOrder::gate_value ? n_out : 0;
    WeightRows r;
    r.first[0] = gate + c0;
    r.first[1] = value + c0;
    r.count[0] = r.count[1] = count;
    return r;
  }

  // The fragment form (epilogue.hpp): output column j of an N-tile from its gate and value
  // accumulators (tile halves 0 and 1, whatever the order in W), in registers; apply's arithmetic.
  static constexpr bool kPairsHalves = true;
  __device__ static float pair(const Params& p, float gate, float value) { return activate(p.act, gate) * value; }
  // The output columns: those of an N-tile start at the offset of its rows within either half (the
  // half that starts at W row 0 shows it).
  FUSEKIT_HD static std::int64_t output_cols(std::int64_t n) { return n / 2; }
  FUSEKIT_HD static std::int64_t output_col0(const Params& p, const WeightRows& wr) {
    return p.order == GluOrder::gate_value ? wr.first[0] : wr.first[1];
  }

  __device__ static void apply(const Params& p, AccTile& t) {
    const int count = t.source.count[0];
    // Reads columns >= half, writes < half: no overlap. Eight columns an item, loaded and stored
    // 16 bytes at a time, so a thread has eight activations in flight (one column an item was a
    // chain of dependent loads: 5% of fc1's time at 925 tokens, RESULTS.md, twenty-ninth session).
    // count is a multiple of 8, as every store node needs (linear_glu: W's rows a multiple of 16).
    for_each_row_item(t, count / 8, [&](int r, int k) {
      float gate[8], value[8];
      t.load8(r, 8 * k, gate);
      t.load8(r, 8 * k + t.half, value);
#pragma unroll
      for (int j = 0; j < 8; ++j) gate[j] = pair(p, gate[j], value[j]);
      t.store8(r, 8 * k, gate);
    });
    t.cols = count;
    t.col0 = output_col0(p, t.source);
  }
};

}  // namespace fusekit::gemm
