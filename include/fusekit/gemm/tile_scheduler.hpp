// fusekit/gemm/tile_scheduler.hpp: the order in which a persistent grid walks the output tiles.
// CTA b takes tiles b, b + grid, b + 2 * grid, ... of a grouped order: bands of kGroupN N-tiles,
// and inside a band every M-tile before the next, the band's N-tiles side by side. One wave of
// 132 CTAs then covers about 8 N-tiles x 16 M-tiles, so both its W rows and its A rows are
// read from HBM about once and then served from L2. (Moving a short last M-tile's tiles to the
// end, to balance the CTAs, was measured slower: their W rows came from HBM again. Pairing them
// inside their band gained nothing: where only the first consumer multiplies, such a tile takes
// a whole tile's time. RESULTS.md, ninth and twelfth sessions.)
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cstdint>

namespace fusekit::gemm {

struct TileOrder {
  static constexpr std::int64_t kGroupN = 8;
  std::int64_t m_tiles = 0, n_tiles = 0;

  FUSEKIT_HD constexpr std::int64_t count() const { return m_tiles * n_tiles; }
  FUSEKIT_HD void coords(std::int64_t t, std::int64_t& m_tile, std::int64_t& n_tile) const {
    const std::int64_t band = t / (kGroupN * m_tiles), in_band = t % (kGroupN * m_tiles);
    const std::int64_t first = band * kGroupN;
    const std::int64_t width = n_tiles - first < kGroupN ? n_tiles - first : kGroupN;
    m_tile = in_band / width;
    n_tile = first + in_band % width;
  }
};

}  // namespace fusekit::gemm
