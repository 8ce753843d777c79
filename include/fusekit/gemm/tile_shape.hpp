// fusekit/gemm/tile_shape.hpp: CTA tile shapes of the portable main loop and the pure host
// rule that picks one. Every epilogue assumes kBlockN = 128: a CTA's N-tile then covers whole
// attention heads (head_dim divides 128) and, for GLU, 64 gate + 64 value columns.
#pragma once

#include <cstdint>

namespace fusekit::gemm {

template <int BlockM, int BlockN, int BlockK, int Stages, int WarpsM, int WarpsN>
struct TileShape {
  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK, kStages = Stages;
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN;
  static constexpr int kThreads = WarpsM * WarpsN * 32;
  static constexpr int kWarpM = BlockM / WarpsM, kWarpN = BlockN / WarpsN;  // one warp's sub-tile
  static_assert(kWarpM % 16 == 0 && kWarpN % 16 == 0, "warp tile is a whole number of m16n8k16 pairs");
};

// Both shapes keep 64 fp32 accumulators per thread; 4 stages of 32-deep k-slices hide HBM
// latency with at most 70 KB of shared memory, so they also fit sm_86/sm_89 (99 KB per block).
using TileLarge = TileShape<128, 128, 32, 4, 2, 4>;  // 256 threads, warp tile 64x32
using TileSmall = TileShape<64, 128, 32, 4, 2, 2>;   // 128 threads, warp tile 32x64

inline constexpr int kTileN = 128;  // shared by all shapes (see above)

enum class TileKind { small, large };

// 64-row tiles when M is short or when 128-row tiles would leave SMs idle; results do not
// depend on the choice (every output element sums its k-products in the same order).
constexpr TileKind select_tile(std::int64_t m, std::int64_t n_tiles, int sm_count) {
  const std::int64_t large_tiles = (m + TileLarge::kBlockM - 1) / TileLarge::kBlockM * n_tiles;
  return (m <= TileSmall::kBlockM || large_tiles < sm_count) ? TileKind::small : TileKind::large;
}

}  // namespace fusekit::gemm
