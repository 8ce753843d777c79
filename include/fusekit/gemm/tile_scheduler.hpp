// fusekit/gemm/tile_scheduler.hpp: the order in which a persistent grid walks the output tiles.
// CTA b takes items b, b + grid, b + 2 * grid, ... of a grouped order: bands of kGroupN N-tiles,
// and inside a band every M-tile before the next, the band's N-tiles side by side. One wave of
// 132 CTAs then covers about 8 N-tiles x 16 M-tiles, so both its W rows and its A rows are
// read from HBM about once and then served from L2.
//
// An item is one tile, or a pair of light tiles: where the last M-tile has at most `light_rows`
// rows (925 tokens: 29 of 128) both consumers multiply those rows, one N-tile each
// (kernel_sm90.hpp), and two such tiles side by side in their band may make one item. A light
// tile still costs 0.85-0.95 of a whole one (its k-slices carry the same W bytes through the
// same ring), so a pair runs about 1.7 tile-times: that pays where it takes a round off the
// busiest CTA (qkv_proj at 150 tokens: 12%) and is noise at 925 tokens (RESULTS.md, thirteenth
// session). The pairs stay in their band (moving the light tiles to the end of the order, to
// balance the CTAs, was measured slower: their W rows came from HBM again). The order of the
// tiles does not change what any tile computes, so the bits do not depend on it.
#pragma once

#include "fusekit/core/dtype.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fusekit::gemm {

struct TileOrder {
  static constexpr std::int64_t kGroupN = 8;
  std::int64_t m_tiles = 0, n_tiles = 0;
  bool light_pairs = false;  // the last M-tile's tiles go two to an item

  FUSEKIT_HD constexpr std::int64_t count() const { return m_tiles * n_tiles; }
  FUSEKIT_HD constexpr void coords(std::int64_t t, std::int64_t& m_tile, std::int64_t& n_tile) const {
    const std::int64_t band = t / (kGroupN * m_tiles), in_band = t % (kGroupN * m_tiles);
    const std::int64_t first = band * kGroupN;
    const std::int64_t width = n_tiles - first < kGroupN ? n_tiles - first : kGroupN;
    m_tile = in_band / width;
    n_tile = first + in_band % width;
  }

  // Items in a band `width` N-tiles wide: its tiles, with the last M-tile's in pairs.
  FUSEKIT_HD constexpr std::int64_t band_items(std::int64_t width) const {
    return light_pairs ? (m_tiles - 1) * width + (width + 1) / 2 : m_tiles * width;
  }
  FUSEKIT_HD constexpr std::int64_t items() const {
    const std::int64_t full = n_tiles / kGroupN, rest = n_tiles % kGroupN;
    return full * band_items(kGroupN) + (rest > 0 ? band_items(rest) : 0);
  }
  // Item i: tiles [first, first + returned count) of the tile order (count 1, or 2 for a pair).
  FUSEKIT_HD constexpr int item_tiles(std::int64_t i, std::int64_t& first) const {
    if (!light_pairs) {
      first = i;
      return 1;
    }
    const std::int64_t per_band = band_items(kGroupN), band = i / per_band, r = i % per_band;
    const std::int64_t width = n_tiles - band * kGroupN < kGroupN ? n_tiles - band * kGroupN : kGroupN;
    const std::int64_t base = band * kGroupN * m_tiles, heavy = (m_tiles - 1) * width;
    if (r < heavy) {
      first = base + r;
      return 1;
    }
    const std::int64_t pair = r - heavy;
    first = base + heavy + 2 * pair;
    return 2 * pair + 1 < width ? 2 : 1;
  }
};

// The light tiles that run alone, one to an item, as item indices: every light tile without
// pairs; with pairs only the last of an odd-width band's (the 8-wide bands pair up evenly).
template <class F> void for_each_single_light_item(const TileOrder& order, F&& f) {
  const std::int64_t bands = (order.n_tiles + TileOrder::kGroupN - 1) / TileOrder::kGroupN;
  for (std::int64_t band = 0; band < bands; ++band) {
    const std::int64_t width = std::min(TileOrder::kGroupN, order.n_tiles - band * TileOrder::kGroupN);
    const std::int64_t heavy = (order.m_tiles - 1) * width;
    if (!order.light_pairs) {
      for (std::int64_t j = 0; j < width; ++j) f(band * TileOrder::kGroupN * order.m_tiles + heavy + j);
    } else if (width % 2 == 1) {
      f(band * order.band_items(TileOrder::kGroupN) + heavy + width / 2);
    }
  }
}

// The busiest of `sm_count` CTAs' work under `order` whose last M-tile is light, in light-tile
// units: a light tile costs 1, any other item 2 (a heavy tile, or a pair). CTA b runs
// items b, b + grid, ...: q or q + 1 of them, less 1 for each light tile it runs alone. Host
// work in the tile columns and the grid, not the tiles (it runs on every such launch).
inline std::int64_t busiest_cta_cost(const TileOrder& order, int sm_count) {
  const std::int64_t items = order.items(), grid = std::min<std::int64_t>(items, sm_count);
  if (grid <= 0) return 0;
  std::vector<std::int64_t> singles(static_cast<std::size_t>(grid), 0);
  for_each_single_light_item(order, [&](std::int64_t i) { ++singles[static_cast<std::size_t>(i % grid)]; });
  const std::int64_t q = items / grid, r = items % grid;
  std::int64_t busiest = 0;
  for (std::int64_t b = 0; b < grid; ++b)
    busiest = std::max(busiest, 2 * (q + (b < r ? 1 : 0)) - singles[static_cast<std::size_t>(b)]);
  return busiest;
}

// `order` with light pairs where they pay: the last of its M-tiles holds at most `light_rows` of
// the `m` rows (`bm` a tile), and pairing lightens the busiest of `sm_count` CTAs, counting a
// light tile as half a tile (925 tokens of qkv_proj: 630 items, at most 5 a CTA, instead of 672
// tiles, 6 a CTA; measured, a pair costs about 1.7 tiles, so this gains little there). Where
// pairing does not pay (one tile a CTA anyway; every tile light) the order stays as it is.
inline TileOrder with_light_pairs(TileOrder order, std::int64_t m, int bm, int light_rows, int sm_count) {
  if (order.count() == 0 || m - (order.m_tiles - 1) * bm > light_rows) return order;
  TileOrder paired = order;
  paired.light_pairs = true;
  return busiest_cta_cost(paired, sm_count) < busiest_cta_cost(order, sm_count) ? paired : order;
}

}  // namespace fusekit::gemm
