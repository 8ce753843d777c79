// CPU tests (run in CI): tile selection, the column sources, and self-checks of the float64
// references. Each entry point's argument checks sit with its GPU tests (validation_testing.hpp).
#include <doctest/doctest.h>

#include "fusekit/gemm.hpp"
#include "reference.hpp"
#include "support/gpu.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

using namespace fusekit;
using namespace fusekit::gemm;

namespace {

// FUSEKIT_GEMM_PATH=portable runs every GPU case of this binary on the portable main loop, so
// both main loops are tested on one Hopper GPU (where the default is the sm_90a one).
const bool path_from_env = [] {
  const char* path = std::getenv("FUSEKIT_GEMM_PATH");
  if (path != nullptr && std::string_view(path) == "portable") {
    gemm_path() = GemmPath::portable;
    std::printf("fusekit_test_gemm: FUSEKIT_GEMM_PATH=portable: GPU cases use the portable main loop\n");
  }
  return true;
}();

}  // namespace

TEST_CASE("tile selection: 64-row tiles for short M or too few 128-row tiles") {
  CHECK(select_tile(1, 168, 132) == TileKind::small);
  CHECK(select_tile(64, 1000, 132) == TileKind::small);
  CHECK(select_tile(70, 168, 132) == TileKind::large);  // 168 tiles of 128 rows fill 132 SMs
  CHECK(select_tile(70, 42, 132) == TileKind::small);
  CHECK(select_tile(925, 42, 132) == TileKind::large);  // 8 x 42 = 336 tiles
  CHECK(select_tile(4096, 168, 132) == TileKind::large);
}

TEST_CASE("swapped tiles: the height whose modeled rounds beat the 128 x 256 tiles' (160 or 232 tokens)") {
  // Rounds of 160-token tiles at 0.7 and of 232-token tiles at 0.95 of a 128 x 256 one, against
  // rounds of 128 x 256 tiles.
  CHECK(choose_swapped_tiles(925, 168, 132) == SwappedTiles::rows160);   // qkv_proj: 8 x 0.7 and 6 x 0.95 against 6
  CHECK(choose_swapped_tiles(925, 224, 132) == SwappedTiles::rows232);   // fc1: 11 x 0.7 and 7 x 0.95 against 7
  CHECK(choose_swapped_tiles(150, 168, 132) == SwappedTiles::rows160);   // 2 x 0.7 and 2 x 0.95 against 2
  CHECK(choose_swapped_tiles(150, 224, 132) == SwappedTiles::rows160);
  CHECK(choose_swapped_tiles(256, 168, 132) == SwappedTiles::never);     // 3 x 0.7 and 3 x 0.95 against 2
  CHECK(choose_swapped_tiles(768, 224, 132) == SwappedTiles::never);     // 9 x 0.7 and 7 x 0.95 against 6
  CHECK(choose_swapped_tiles(1024, 168, 132) == SwappedTiles::never);    // 9 x 0.7 and 7 x 0.95 against 6
  CHECK(choose_swapped_tiles(4096, 168, 132) == SwappedTiles::never);    // 34 x 0.7 and 23 x 0.95 against 21
  CHECK(choose_swapped_tiles(4096, 224, 132) == SwappedTiles::never);    // 31 x 0.95 against 28
  CHECK(choose_swapped_tiles(925, 168, 0) == SwappedTiles::never);
}

TEST_CASE("few-row calls: 72-token tiles, one N-tile a CTA where their rounds fill, else two") {
  CHECK(choose_few_row_tiles(224, 132) == SwappedTiles::rows72);  // fc1 at 70 tokens: 92 in the second round
  CHECK(choose_few_row_tiles(168, 132) == SwappedTiles::wide72);  // qkv_proj: 36 in the second round
  CHECK(choose_few_row_tiles(132, 132) == SwappedTiles::rows72);  // one round
  CHECK(choose_few_row_tiles(8, 132) == SwappedTiles::rows72);
  CHECK(choose_few_row_tiles(198, 132) == SwappedTiles::rows72);  // 66: half the SMs
  CHECK(choose_few_row_tiles(197, 132) == SwappedTiles::wide72);
  CHECK(choose_few_row_tiles(224, 0) == SwappedTiles::never);
}

// epilogue.hpp's prefetch/release hooks: a signature change would make the kernels skip them silently.
TEST_CASE("epilogue L2 hooks: the residual node warms L2 ahead of an exposed epilogue; the others do not") {
  CHECK(ResidualEpilogue<bf16_t, bf16_t>::kPrefetches);
  CHECK(ResidualEpilogue<bf16_t, float>::kPrefetches);
  CHECK_FALSE(LinearEpilogue<bf16_t, bf16_t>::kPrefetches);
  CHECK_FALSE(GluEpilogue<bf16_t, bf16_t>::kPrefetches);
  CHECK_FALSE(QkvEpilogue<bf16_t, bf16_t>::kPrefetches);
}

TEST_CASE("column-local epilogues (the half-swapped few-row kernel's): bias, activation, residual, store; not GLU or qkv") {
  CHECK(kColumnLocalEpilogue<LinearEpilogue<bf16_t, bf16_t>>);
  CHECK(kColumnLocalEpilogue<ResidualEpilogue<bf16_t, float>>);
  CHECK(kColumnLocalEpilogue<Epilogue<StoreRows<fp16_t>>>);
  CHECK_FALSE(kColumnLocalEpilogue<GluEpilogue<bf16_t, bf16_t>>);  // pairs gate and value rows
  CHECK_FALSE(kColumnLocalEpilogue<QkvEpilogue<bf16_t, bf16_t>>);  // norms over whole heads
  CHECK_FALSE(kColumnLocalEpilogue<Epilogue<HeadRmsNorm<bf16_t>, StoreRows<bf16_t>>>);
  CHECK(HopperHalfSwappedMainLoop<bf16_t>::box_rows(1) == 8);  // the token box: M rounded up to 8, at most 72
  CHECK(HopperHalfSwappedMainLoop<bf16_t>::box_rows(37) == 40);
  CHECK(HopperHalfSwappedMainLoop<bf16_t>::box_rows(70) == 72);
  CHECK(HopperHalfSwappedMainLoop<bf16_t>::box_rows(925) == 72);
}

TEST_CASE("K segments: long K and few tile columns, decided by N and K, never by M") {
  CHECK(k_segmented_weight(42, 7168, 132));    // out_proj: 21 wide-tile columns
  CHECK(k_segmented_weight(42, 14336, 132));   // fc2
  CHECK(!k_segmented_weight(168, 5376, 132));  // qkv_proj
  CHECK(!k_segmented_weight(224, 5376, 132));  // fc1 (GLU tiles)
  CHECK(!k_segmented_weight(56, 5376, 132));   // a q, k or v third: same tiles as the fused qkv
  CHECK(!k_segmented_weight(168, 7168, 132));  // enough columns for every SM
}

TEST_CASE("K segments: the tiles from the modeled time of each plan") {
  // 925 tokens: 336 narrow tiles take 3 whole waves (336 k-slices on the busiest CTA); 168 wide
  // tiles one whole wave and a wave of thirds ((112 + 38) x 1.95 + 40 = 332.5); 252 swapped
  // 160-token tiles two rounds (2 x 112 x 0.7 x 1.95 = 305.8).
  const int sms = 132;
  CHECK(choose_segment_tiles(925, 42, 7168, sms) == SegmentTiles::swapped);
  CHECK(choose_segment_tiles(925, 42, 14336, sms) == SegmentTiles::swapped);
  CHECK(choose_segment_tiles(768, 42, 7168, sms) == SegmentTiles::wide);  // 126 wide tiles: one whole wave
  CHECK(choose_segment_tiles(640, 42, 7168, sms) == SegmentTiles::wide);
  CHECK(choose_segment_tiles(2048, 42, 7168, sms) == SegmentTiles::narrow);  // 5 narrow waves + a split tail
  CHECK(choose_segment_tiles(4096, 42, 14336, sms) == SegmentTiles::narrow);
  CHECK(choose_segment_tiles(384, 42, 7168, sms) == SegmentTiles::narrow);   // 126 narrow tiles: one whole wave
  CHECK(choose_segment_tiles(128, 42, 7168, sms) == SegmentTiles::narrow);   // 126 narrow thirds: one wave
  CHECK(choose_segment_tiles(70, 42, 7168, sms) == SegmentTiles::narrow);
  SplitPlan plan;  // 336 whole tiles of 112 k-slices: CTAs 0..71 run 3
  plan.whole_tiles = 336;
  plan.segments.count = 3;
  CHECK(busiest_cta_slices(plan, 336, 112, sms, 1.0, 20) == doctest::Approx(336));
  plan.whole_tiles = 132;  // 168 wide tiles, the last 36 in thirds (38 k-slices each)
  CHECK(busiest_cta_slices(plan, 168, 112, sms, 2.0, 10) == doctest::Approx(2 * (112 + 38) + 10));
  plan.whole_tiles = 0;  // 42 tiles in thirds on 126 CTAs
  CHECK(busiest_cta_slices(plan, 42, 112, sms, 1.0, 0) == doctest::Approx(38));
  const SplitPlan wide = fusekit::gemm::detail::segment_plan(TileOrder{8, 21}, 42, 112, sms, SplitKWay::automatic);
  CHECK(wide.segments.count == 3);  // from the 42 narrow columns, not the 21 wide ones (which would give 4)
  CHECK(wide.whole_tiles == 132);
}

TEST_CASE("K segments: from N, K and the GPU only; split tiles only where they finish sooner") {
  CHECK(choose_k_segments(42, 112, 132) == 3);  // out_proj: 3 x 42 CTAs at 70 tokens
  CHECK(choose_k_segments(42, 224, 132) == 3);  // fc2
  CHECK(choose_k_segments(9, 112, 132) == 4);   // capped at kMaxKSegments
  CHECK(choose_k_segments(42, 40, 132) == 2);   // each segment keeps >= 16 k-slices
  CHECK(choose_k_segments(42, 31, 132) == 1);
  CHECK(choose_k_segments(70, 224, 132) == 1);  // 2 x 70 > 132 SMs
  CHECK(KSegments{3}.count == 3);
  int b = 0, e = 0;
  KSegments{3}.range(2, 97, b, e);  // the last segment ends at the last k-slice
  CHECK(b == 64);
  CHECK(e == 97);
  CHECK(split_tail_tiles(42, 3, 132) == 42);    // 70 tokens: one wave of thirds for every tile
  CHECK(split_tail_tiles(336, 3, 132) == 0);    // 925 tokens: the last 72 tiles' thirds take 2 waves
  CHECK(split_tail_tiles(9, 4, 132) == 9);      // 36 quarters: one wave
  CHECK(split_tail_tiles(60, 4, 132) == 60);    // 240 quarters: 2 waves of quarters, half a whole wave
  CHECK(split_tail_tiles(100, 4, 132) == 0);    // 400 quarters: 4 waves of quarters, as long as a whole wave
  CHECK(split_tail_tiles(1344, 3, 132) == 24);  // 4096 tokens
  CHECK(split_tail_tiles(264, 3, 132) == 0);    // whole waves only: nothing to fill
  CHECK(split_tail_tiles(120, 3, 132) == 0);    // 360 thirds take 3 waves: no faster than 1 whole wave
  CHECK(split_tail_tiles(42, 1, 132) == 0);
}

TEST_CASE("split plan: whole tiles first, then one item per segment of each split tile") {
  SplitPlan plan;
  plan.segments.count = 3;
  plan.whole_tiles = 4;
  CHECK(plan.items(6) == 4 + 2 * 3);
  const WorkItem whole = plan.item(3), first = plan.item(4), last = plan.item(9);
  CHECK(whole.tile == 3);
  CHECK(whole.segment == -1);
  CHECK(first.tile == 4);
  CHECK(first.segment == 0);
  CHECK(first.split == 0);
  CHECK(last.tile == 5);
  CHECK(last.segment == 2);
  CHECK(last.split == 1);
}

TEST_CASE("tile order: light pairs cover every tile once, pair only the last M-tile, and only where they pay") {
  // 925 rows: the last 128-row tile holds 29 (a light tile: half the tensor work).
  for (std::int64_t n_tiles : {84, 83, 5, 8, 1}) {  // whole bands; a last band of 3 (a pair and a single); one band
    CAPTURE(n_tiles);
    TileOrder order{8, n_tiles};
    order.light_pairs = true;
    std::vector<int> seen(static_cast<std::size_t>(order.count()), 0);
    std::int64_t pairs = 0;
    for (std::int64_t i = 0; i < order.items(); ++i) {
      std::int64_t first = -1;
      const int count = order.item_tiles(i, first);
      REQUIRE((count == 1 || count == 2));
      REQUIRE(first >= 0);
      REQUIRE(first + count <= order.count());
      for (std::int64_t t = first; t < first + count; ++t) ++seen[static_cast<std::size_t>(t)];
      std::int64_t m0 = 0, n0 = 0;
      order.coords(first, m0, n0);
      if (count == 2) {
        ++pairs;
        std::int64_t m1 = 0, n1 = 0;
        order.coords(first + 1, m1, n1);
        CHECK(m0 == 7);  // only light tiles pair, side by side in one band
        CHECK(m1 == 7);
        CHECK(n1 == n0 + 1);
        CHECK(n0 / TileOrder::kGroupN == n1 / TileOrder::kGroupN);
      }
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
    CHECK(pairs == n_tiles / TileOrder::kGroupN * 4 + n_tiles % TileOrder::kGroupN / 2);
  }
  const int sms = 132;
  const TileOrder qkv925 = with_light_pairs(TileOrder{8, 84}, 925, 128, 64, sms);
  CHECK(qkv925.light_pairs);  // 672 tiles, 6 on the busiest CTA, against 630 items, 5 tiles' cost
  CHECK(qkv925.items() == 630);
  CHECK(busiest_cta_cost(TileOrder{8, 84}, sms) == 12);
  CHECK(busiest_cta_cost(qkv925, sms) == 10);
  // The model against a walk over every tile of every CTA's items.
  auto walked = [](const TileOrder& order, int grid_max) {
    const std::int64_t items = order.items(), grid = std::min<std::int64_t>(items, grid_max);
    std::int64_t busiest = 0;
    for (std::int64_t b = 0; b < grid; ++b) {
      std::int64_t cost = 0;
      for (std::int64_t i = b; i < items; i += grid) {
        std::int64_t first = 0;
        const int count = order.item_tiles(i, first);
        for (std::int64_t t = first; t < first + count; ++t) {
          std::int64_t m_tile = 0, n_tile = 0;
          order.coords(t, m_tile, n_tile);
          cost += m_tile == order.m_tiles - 1 ? 1 : 2;
        }
      }
      busiest = std::max(busiest, cost);
    }
    return busiest;
  };
  for (std::int64_t m_tiles : {1, 2, 8, 9})
    for (std::int64_t n_tiles = 1; n_tiles <= 90; n_tiles += 7)
      for (bool pairs : {false, true})
        for (int grid : {132, 7}) {
          TileOrder order{m_tiles, n_tiles};
          order.light_pairs = pairs;
          CAPTURE(m_tiles);
          CAPTURE(n_tiles);
          CAPTURE(pairs);
          CAPTURE(grid);
          CHECK(busiest_cta_cost(order, grid) == walked(order, grid));
        }
  CHECK(!with_light_pairs(TileOrder{8, 112}, 925, 128, 64, sms).light_pairs);  // fc1: 7 either way
  CHECK(with_light_pairs(TileOrder{8, 84}, 960, 128, 64, sms).light_pairs);    // 64 rows: still light
  CHECK(!with_light_pairs(TileOrder{8, 84}, 961, 128, 64, sms).light_pairs);   // 65 rows: both consumers work
  CHECK(!with_light_pairs(TileOrder{32, 84}, 4096, 128, 64, sms).light_pairs);
  CHECK(!with_light_pairs(TileOrder{1, 300}, 32, 128, 64, sms).light_pairs);   // every tile light: pairs idle SMs
  CHECK(!with_light_pairs(TileOrder{8, 10}, 925, 128, 64, sms).light_pairs);   // 80 tiles: one each
  TileOrder plain{8, 84};
  CHECK(plain.items() == plain.count());
  std::int64_t first = -1;
  CHECK(plain.item_tiles(100, first) == 1);
  CHECK(first == 100);
}

TEST_CASE("column sources: contiguous tiles and GLU gate/value pairs") {
  WeightRows r = ContiguousColumns::weight_rows(200, 128, 1);  // columns 128..199: 64 + 8
  CHECK(r.first[0] == 128);
  CHECK(r.first[1] == 192);
  CHECK(r.count[0] == 64);
  CHECK(r.count[1] == 8);
  CHECK(ContiguousColumns::n_tiles(200, 128) == 2);
  r = ContiguousColumns::weight_rows(40, 128, 0);
  CHECK(r.count[0] == 40);
  CHECK(r.count[1] == 0);

  Glu::Params native{Activation::silu, GluOrder::gate_value}, swapped{Activation::silu, GluOrder::value_gate};
  CHECK(Glu::n_tiles(native, 2 * 14336, 128) == 224);
  r = Glu::weight_rows(native, 2 * 100, 128, 1);  // output columns 64..99
  CHECK(r.first[0] == 64);         // gate rows
  CHECK(r.first[1] == 100 + 64);   // value rows
  CHECK(r.count[0] == 36);
  CHECK(r.count[1] == 36);
  r = Glu::weight_rows(swapped, 2 * 100, 128, 1);
  CHECK(r.first[0] == 100 + 64);  // gate rows now in the second half of W
  CHECK(r.first[1] == 64);
}

TEST_CASE("float64 references: rotary and per-head RMSNorm on known values") {
  using namespace fusekit::test;
  Ref y{{0}, 8, {1, 2, 3, 4, 5, 6, 7, 8}};
  Matrix cos{DType::f32, 1, 4, {0, 0, 0, 0}}, sin{DType::f32, 1, 4, {1, 1, 1, 1}};
  ref_rotary(y, 0, 8, 8, 4, cos, sin);  // a quarter turn: (x1, x2) -> (-x2, x1) on channels 0..3
  CHECK(y.v == std::vector<double>{-3, -4, 1, 2, 5, 6, 7, 8});
  Ref z{{0}, 4, {2, -2, 2, -2}};
  Matrix w{DType::f32, 1, 4, {1, 2, 3, 4}};
  ref_head_rmsnorm(z, 0, 4, 4, w, 0.0);
  CHECK(z.v == std::vector<double>{1, -2, 3, -4});
  Ref g{{0}, 4, {1, 2, 3, 4}};
  const Ref glu = ref_glu(g, Activation::identity, GluOrder::value_gate);  // gate = {3, 4}, value = {1, 2}
  CHECK(glu.v == std::vector<double>{3, 8});
  CHECK(ref_activate(Activation::silu, 0.0) == 0.0);
  CHECK(ref_activate(Activation::gelu_tanh, 10.0) == doctest::Approx(10.0));
}
