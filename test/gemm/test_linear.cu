// GPU tests of the plain linear: the identity epilogue (main loop alone), bias, activations,
// f32 output, strided views, odd M, the smallest K and N; against float64 and cuBLASLt. At the
// end, linear's argument checks (CPU).
#include "fusekit/gemm.hpp"
#include "gemm_testing.hpp"
#include "validation_testing.hpp"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

using namespace fusekit;
using namespace fusekit::test;
using gemm::Activation;

namespace {

struct Shape {
  std::int64_t m, n, k;
};

// Runs linear on fresh random inputs and checks it against float64 (and cuBLASLt for bare GEMMs).
void run_linear(DType t, Shape s, Activation act, bool with_bias, DType out_t) {
  CAPTURE(s.m);
  CAPTURE(s.n);
  CAPTURE(s.k);
  const DevMatrix a = random_device(t, s.m, s.k, 1.0);
  const DevMatrix w = random_device(t, s.n, s.k, 1.0 / std::sqrt(double(s.k)));
  const DevMatrix bias = random_device(t, 1, s.n, 0.5);
  const DevMatrix out = poisoned_output(out_t, s.m, s.n);
  gemm::LinearOptions opt;
  opt.act = act;
  if (with_bias) opt.bias = {bias.buf.get(), t, s.n};
  const Status st = gemm::linear(a.view(), w.view(), out.out(), opt);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK_LAUNCH();
  const Matrix got = fetch_written(out);
  const auto rows = sample_rows(s.m, fresh_seed());
  Ref ref = ref_gemm(a.host, w.host, rows);
  ref_bias_act(ref, with_bias ? &bias.host : nullptr, act);
  check_close(got, ref, "linear");
  if (!with_bias && act == Activation::identity && out_t == t) {
    check_not_worse_than_cublaslt(take_rows(got, rows), take_rows(cublaslt_gemm(a, w), rows), ref, "bare GEMM");
  }
}

}  // namespace

GPU_TEST_CASE("linear: identity epilogue, odd M and the smallest K and N") {
  on_every_tile([] {
    for (Shape s : {Shape{1, 8, 8}, Shape{3, 8, 16}, Shape{37, 136, 72}, Shape{65, 8, 8}, Shape{70, 264, 520},
                    Shape{129, 384, 264}, Shape{161, 136, 200}, Shape{925, 1024, 512}, Shape{300, 2048, 2048}})
      run_linear(DType::bf16, s, Activation::identity, false, DType::bf16);
  });
}

// The launcher's checks of the binary (hopper_available: binary version, ptxVersion, no marker of a
// build without sm_90a) must accept this sm_90a build on an sm_90 GPU, or every GEMM would run
// on the portable main loop and every test here would still pass.
GPU_TEST_CASE("linear: this sm_90a build takes the Hopper main loop on a compute capability 9.0 GPU") {
  DeviceInfo device;
  REQUIRE(current_device(device).ok());
  CHECK(gemm::detail::hopper_available<bf16_t, gemm::LinearEpilogue<bf16_t, bf16_t>>(device) ==
        (device.major == 9 && device.minor == 0));
}

GPU_TEST_CASE("linear: fp16 inputs") {
  on_every_tile([] {
    for (Shape s : {Shape{5, 24, 40}, Shape{200, 1032, 1024}})
      run_linear(DType::f16, s, Activation::identity, false, DType::f16);
  });
}

GPU_TEST_CASE("linear: bias, GELU (tanh) and SiLU") {
  on_every_tile([] {
    run_linear(DType::bf16, {37, 392, 256}, Activation::identity, true, DType::bf16);
    run_linear(DType::bf16, {70, 520, 128}, Activation::gelu_tanh, true, DType::bf16);
    run_linear(DType::bf16, {131, 256, 200}, Activation::silu, false, DType::bf16);
    run_linear(DType::f16, {17, 136, 64}, Activation::gelu_tanh, false, DType::f16);
  });
}

GPU_TEST_CASE("linear: f32 output") {
  on_every_tile([] {
    run_linear(DType::bf16, {70, 264, 1024}, Activation::identity, false, DType::f32);
    run_linear(DType::f16, {9, 64, 32}, Activation::silu, true, DType::f32);
  });
}

GPU_TEST_CASE("linear: swapped tiles (tokens as the wgmma's N) give the 128 x 256 tiles' bits") {
  // The launcher picks the tiles by M (kernel.hpp, choose_swapped_tiles), so all must give every
  // row the same bits, or a row's result would depend on how many rows share the call. Each
  // shape runs on every tile, forced, and as the launcher picks; the rows of the last, partial
  // swapped tile alone must equal the same rows inside the call.
  const RestoreSwappedTiles restore;
  if (gpu_state().sm_count == 132) {  // the H200: qkv_proj's width at 925 tokens takes 160-token tiles, fc1's 232
    REQUIRE(gemm::choose_swapped_tiles(925, 168, 132) == gemm::SwappedTiles::rows160);
    REQUIRE(gemm::choose_swapped_tiles(925, 224, 132) == gemm::SwappedTiles::rows232);
    REQUIRE(gemm::choose_swapped_tiles(4096, 168, 132) == gemm::SwappedTiles::never);
    REQUIRE(gemm::choose_few_row_tiles(224, 132) == gemm::SwappedTiles::rows72);  // fc1 at 70 tokens
    REQUIRE(gemm::choose_few_row_tiles(168, 132) == gemm::SwappedTiles::wide72);  // qkv_proj at 70 tokens
  }
  // 70 and 37 rows: few-row calls (72-token tiles, 128 x 72 for 28672 columns, 256 x 72 for 21504).
  for (Shape s : {Shape{925, 21504, 328}, Shape{925, 28672, 136}, Shape{161, 1032, 200}, Shape{300, 136, 72},
                  Shape{70, 21504, 328}, Shape{70, 28672, 136}, Shape{37, 1160, 200}}) {
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    const DevMatrix a = random_device(DType::bf16, s.m, s.k, 1.0);
    const DevMatrix w = random_device(DType::bf16, s.n, s.k, 1.0 / std::sqrt(double(s.k)));
    std::vector<std::vector<unsigned char>> bits;
    for (gemm::SwappedTiles choice : {gemm::SwappedTiles::never, gemm::SwappedTiles::rows160,
                                      gemm::SwappedTiles::rows232, gemm::SwappedTiles::rows72,
                                      gemm::SwappedTiles::wide72, gemm::SwappedTiles::automatic}) {
      CAPTURE(int(choice));
      gemm::swapped_tiles() = choice;
      const DevMatrix y = poisoned_output(DType::bf16, s.m, s.n);
      REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
      CHECK_LAUNCH();
      std::vector<std::int64_t> rows = sample_rows(s.m, fresh_seed());
      rows.push_back(s.m - 1);
      check_close(fetch_written(y), ref_gemm(a.host, w.host, rows), "linear, swapped tiles");
      bits.push_back(download_bytes(y));
    }
    for (std::size_t i = 1; i < bits.size(); ++i) {
      CAPTURE(i);
      CHECK(bits[0] == bits[i]);
    }
    for (auto [choice, height] : {std::pair{gemm::SwappedTiles::rows160, std::int64_t{160}},
                                  std::pair{gemm::SwappedTiles::rows232, std::int64_t{232}},
                                  std::pair{gemm::SwappedTiles::rows72, std::int64_t{72}},
                                  std::pair{gemm::SwappedTiles::wide72, std::int64_t{72}}}) {
      CAPTURE(height);
      gemm::swapped_tiles() = choice;
      const std::int64_t first = (s.m - 1) / height * height, tail = s.m - first;
      const DevMatrix y_tail = poisoned_output(DType::bf16, tail, s.n);
      REQUIRE(gemm::linear({static_cast<const unsigned char*>(a.buf.get()) + first * s.k * 2, DType::bf16, tail, s.k, 0},
                           w.view(), y_tail.out())
                  .ok());
      CHECK_LAUNCH();
      const auto b_tail = download_bytes(y_tail);
      CHECK(std::equal(b_tail.begin(), b_tail.end(), bits[0].begin() + first * s.n * 2));
    }
  }
}

GPU_TEST_CASE("linear: strided views (row stride > cols) read and write only their columns") {
  on_every_tile([] {
    const std::int64_t m = 45, n = 136, k = 96, lda = 136, ldo = 200;
    const DevMatrix a = random_device(DType::bf16, m, lda, 1.0);  // use the first k columns
    const DevMatrix w = random_device(DType::bf16, n, k, 0.1);
    const DevMatrix out = poisoned_output(DType::bf16, m, ldo);
    const Status st = gemm::linear({a.buf.get(), DType::bf16, m, k, lda}, w.view(), {out.buf.get(), DType::bf16, m, n, ldo});
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    CHECK_LAUNCH();
    const ViewReadBack view = read_view(out, 0, m, n, ldo);
    Matrix a_used{DType::bf16, m, k, std::vector<float>(m * k)};
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < k; ++c) a_used.v[r * k + c] = a.host.at(r, c);
    CHECK(view.unwritten == 0);
    CHECK(view.outside_written == 0);  // the gaps between the view's rows
    check_close(view.got, ref_gemm(a_used, w.host, sample_rows(m, 1)), "strided linear");
  });
}

GPU_TEST_CASE("linear: repeatable bitwise across runs and independent of the tile shape") {
  // M = 64 runs 64-row tiles, M = 1200 runs 128-row tiles; the first 64 rows must agree bitwise.
  REQUIRE(gemm::select_tile(64, 32, gpu_state().sm_count) == gemm::TileKind::small);
  REQUIRE(gemm::select_tile(1200, 32, gpu_state().sm_count) == gemm::TileKind::large);
  const DevMatrix a = random_device(DType::bf16, 1200, 1024, 1.0);
  const DevMatrix w = random_device(DType::bf16, 4096, 1024, 0.03);
  const DevMatrix y1 = poisoned_output(DType::bf16, 1200, 4096), y2 = poisoned_output(DType::bf16, 1200, 4096);
  const DevMatrix y64 = poisoned_output(DType::bf16, 64, 4096);
  REQUIRE(gemm::linear(a.view(), w.view(), y1.out()).ok());
  REQUIRE(gemm::linear(a.view(), w.view(), y2.out()).ok());
  REQUIRE(gemm::linear({a.buf.get(), DType::bf16, 64, 1024, 0}, w.view(), y64.out()).ok());
  CHECK_LAUNCH();
  CHECK(bitwise_equal(y1, y2));
  const auto b1 = download_bytes(y1), b64 = download_bytes(y64);
  CHECK(std::equal(b64.begin(), b64.end(), b1.begin()));
}

GPU_TEST_CASE("linear: long K and few columns (narrow Hopper tiles), odd sizes, batch invariant") {
  // K >= 6144 with few tile columns takes 128 x 128 tiles on the Hopper path (out_proj/fc2's
  // regime); odd M and N, and a K that is not a multiple of the 64-deep k-slice.
  REQUIRE(gemm::k_segmented_weight(2, 6152, gpu_state().sm_count));
  for (Shape s : {Shape{1, 136, 6152}, Shape{129, 264, 14336}})
    run_linear(DType::bf16, s, Activation::identity, false, DType::bf16);
  const DevMatrix a = random_device(DType::bf16, 300, 7168, 1.0);
  const DevMatrix w = random_device(DType::bf16, 1032, 7168, 0.01);
  const DevMatrix y = poisoned_output(DType::bf16, 300, 1032), y1 = poisoned_output(DType::bf16, 1, 1032);
  REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
  REQUIRE(gemm::linear({a.buf.get(), DType::bf16, 1, 7168, 0}, w.view(), y1.out()).ok());
  CHECK_LAUNCH();
  const auto b = download_bytes(y), b1 = download_bytes(y1);
  CHECK(std::equal(b1.begin(), b1.end(), b.begin()));  // row 0 alone == row 0 of 300
}

GPU_TEST_CASE("linear: the H3 long-K weights give 70 rows alone the bits of the same rows among 925") {
  // out_proj (K = 7168) and fc2 (K = 14336) at 70 tokens run the few-row K-segment kernel, at 925
  // tokens swapped 160-token tiles (the launcher's choices): different kernels that must fold the
  // same K segments alike.
  for (std::int64_t k : {7168, 14336}) {
    CAPTURE(k);
    const DevMatrix a = random_device(DType::bf16, 925, k, 1.0);
    const DevMatrix w = random_device(DType::bf16, 5376, k, 1.0 / std::sqrt(double(k)));
    for (DType out : {DType::bf16, DType::f32}) {  // f32 shows every bit of the folds
      CAPTURE(int(out));
      const DevMatrix all = poisoned_output(out, 925, 5376), few = poisoned_output(out, 70, 5376);
      REQUIRE(gemm::linear(a.view(), w.view(), all.out()).ok());
      REQUIRE(gemm::linear({a.buf.get(), DType::bf16, 70, k, 0}, w.view(), few.out()).ok());
      CHECK_LAUNCH();
      (void)fetch_written(all);  // every element written
      (void)fetch_written(few);
      const auto b_all = download_bytes(all), b_few = download_bytes(few);
      CHECK(std::equal(b_few.begin(), b_few.end(), b_all.begin()));
    }
  }
}

GPU_TEST_CASE("linear: K segments summed in one CTA or across CTAs, on every tile kind, give the same bits") {
  // Long, narrow weights cut K into segments (split_k.hpp). A tile runs whole (one CTA folds its
  // segments) or split (a CTA per segment, folded in a global workspace); few rows split every
  // tile, many rows only the last wave's. Tiles are 128 x 128 (folded in shared memory),
  // 128 x 256 (folded through the registers and global memory, fragment_fold.hpp) or swapped
  // 160 x 128 (always whole, folded in the registers), chosen by M.
  // Every way must give every row the same bits, or a row's result would depend on how many
  // rows share the call. Each shape runs each way on each width, forced, and the default twice
  // (the second finds the arrival counters and running sums the first left behind).
  struct Way {
    gemm::SplitKWay saved = gemm::split_k_way().load();
    gemm::SegmentTiles tiles = gemm::segment_tiles().load();
    gemm::SplitFold fold = gemm::split_fold().load();
    ~Way() {
      gemm::split_k_way() = saved;
      gemm::segment_tiles() = tiles;
      gemm::split_fold() = fold;
    }
  } restore;
  for (Shape s : {Shape{300, 1032, 7168}, Shape{37, 264, 6152}, Shape{129, 136, 14336}, Shape{70, 5376, 7168},
                  Shape{925, 5376, 7168}, Shape{300, 8960, 6144}}) {  // the last: 70 columns, K in one segment
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    const DevMatrix a = random_device(DType::bf16, s.m, s.k, 1.0);
    const DevMatrix w = random_device(DType::bf16, s.n, s.k, 1.0 / std::sqrt(double(s.k)));
    // bf16 outputs are checked against float64 too; f32 outputs show every bit of the folds.
    for (DType out : {DType::bf16, DType::f32}) {
      CAPTURE(int(out));
      std::vector<std::vector<unsigned char>> bits;
      // The few-row kernel's split tiles (narrow, split, at most 72 rows) fold at the last arrival
      // or in shares (SharedFold, cooperative launch); elsewhere the fold switch changes nothing.
      // Few-swapped: 72-token tiles, one segment a CTA, folded in shares (few rows, every tile split).
      // Half-swapped: 64-row W halves over the whole K, the segments folded in the registers (any M when forced).
      for (gemm::SegmentTiles tiles : {gemm::SegmentTiles::narrow, gemm::SegmentTiles::wide, gemm::SegmentTiles::swapped,
                                       gemm::SegmentTiles::few_swapped, gemm::SegmentTiles::half_swapped})
        for (gemm::SplitKWay way : {gemm::SplitKWay::whole, gemm::SplitKWay::split})
          for (gemm::SplitFold fold : {gemm::SplitFold::automatic, gemm::SplitFold::last_arrival}) {
            if ((tiles == gemm::SegmentTiles::swapped || tiles == gemm::SegmentTiles::half_swapped) &&
                way == gemm::SplitKWay::split)
              continue;  // never split
            if (tiles == gemm::SegmentTiles::few_swapped && (way != gemm::SplitKWay::split || s.m > 72)) continue;
            if (fold == gemm::SplitFold::last_arrival && (tiles != gemm::SegmentTiles::narrow || way != gemm::SplitKWay::split))
              continue;  // the same kernel as automatic's
            gemm::segment_tiles() = tiles;
            gemm::split_k_way() = way;
            gemm::split_fold() = fold;
            CAPTURE(int(tiles));
            CAPTURE(int(way));
            CAPTURE(int(fold));
            const DevMatrix y = poisoned_output(out, s.m, s.n);
            REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
            CHECK_LAUNCH();
            if (out == DType::bf16) {
              const auto rows = sample_rows(s.m, fresh_seed());  // and right, against float64
              check_close(fetch_written(y), ref_gemm(a.host, w.host, rows), "linear, K segments");
            } else {
              (void)fetch_written(y);  // every element written
            }
            bits.push_back(download_bytes(y));
          }
      gemm::segment_tiles() = gemm::SegmentTiles::automatic;
      gemm::split_k_way() = gemm::SplitKWay::automatic;
      gemm::split_fold() = gemm::SplitFold::automatic;
      for (int i = 0; i < 2; ++i) {
        const DevMatrix y = poisoned_output(out, s.m, s.n);
        REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
        CHECK_LAUNCH();
        bits.push_back(download_bytes(y));
      }
      for (std::size_t i = 1; i < bits.size(); ++i) {
        CAPTURE(i);
        CHECK(bits[0] == bits[i]);
      }
    }
  }
}

GPU_TEST_CASE("linear: light tile pairs (a short last M-tile) give the same bits as one tile an item") {
  // 925 rows leave 29 in the last 128-row tile; with many tile columns its tiles run two to a
  // CTA's item (tile_scheduler.hpp). The order must not change any bit, the last M-tile's rows
  // alone must equal the same rows inside the call, and every element must be written. 165
  // N-tiles: the last band is 3 tile columns wide (a pair and a single), the last of them half
  // filled (one N-tile of two).
  struct Restore {
    bool saved = gemm::light_tile_pairs().load();
    ~Restore() { gemm::light_tile_pairs() = saved; }
  } restore;
  if (gpu_state().sm_count == 132)  // the H200: these shapes do take pairs
    REQUIRE(gemm::with_light_pairs(gemm::TileOrder{8, 83}, 925, 128, 64, 132).light_pairs);
  for (std::int64_t n : {21120, 21504, 21376}) {  // 21376: a pair whose second tile column is half filled
    CAPTURE(n);
    const std::int64_t m = 925, k = 328;
    const DevMatrix a = random_device(DType::bf16, m, k, 1.0);
    const DevMatrix w = random_device(DType::bf16, n, k, 1.0 / std::sqrt(double(k)));
    std::vector<std::vector<unsigned char>> bits;
    for (bool pairs : {true, false, true}) {
      gemm::light_tile_pairs() = pairs;
      const DevMatrix y = poisoned_output(DType::bf16, m, n);
      REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
      CHECK_LAUNCH();
      std::vector<std::int64_t> rows = sample_rows(m, fresh_seed());
      rows.push_back(m - 1);  // a row of the light tiles
      check_close(fetch_written(y), ref_gemm(a.host, w.host, rows), "linear, light pairs");
      bits.push_back(download_bytes(y));
    }
    CHECK(bits[0] == bits[1]);
    CHECK(bits[0] == bits[2]);
    gemm::light_tile_pairs() = true;
    const std::int64_t tail = m - 7 * 128;  // the light tile's rows, alone
    const DevMatrix y_tail = poisoned_output(DType::bf16, tail, n);
    const std::size_t row_bytes = static_cast<std::size_t>(n) * 2;
    REQUIRE(gemm::linear({static_cast<const unsigned char*>(a.buf.get()) + 7 * 128 * k * 2, DType::bf16, tail, k, 0},
                         w.view(), y_tail.out())
                .ok());
    CHECK_LAUNCH();
    const auto b_tail = download_bytes(y_tail);
    CHECK(std::equal(b_tail.begin(), b_tail.end(), bits[0].begin() + 7 * 128 * row_bytes));
  }
}

GPU_TEST_CASE("linear: at most 64 rows on more tile columns than SMs: every tile light, split by N") {
  // 37 rows and 133 tile columns of 256 take the persistent 128 x 256 kernel with every tile
  // light (both consumers on the 37 rows, one N-tile each, m64n128); the first 2048 columns
  // alone (8 tiles) take the few-row kernel, where the first consumer multiplies all 256
  // columns (m64n256). wgmma's sums do not depend on N: the same bits.
  const std::int64_t m = 37, n = 133 * 256 - 128, k = 200;
  const DevMatrix a = random_device(DType::bf16, m, k, 1.0);
  const DevMatrix w = random_device(DType::bf16, n, k, 1.0 / std::sqrt(double(k)));
  const DevMatrix y = poisoned_output(DType::bf16, m, n), y_few = poisoned_output(DType::bf16, m, 2048);
  REQUIRE(gemm::linear(a.view(), w.view(), y.out()).ok());
  REQUIRE(gemm::linear(a.view(), {w.buf.get(), DType::bf16, 2048, k, 0}, y_few.out()).ok());
  CHECK_LAUNCH();
  check_close(fetch_written(y), ref_gemm(a.host, w.host, sample_rows(m, fresh_seed())), "linear, light tiles");
  const auto b = download_bytes(y), b_few = download_bytes(y_few);
  const std::size_t row = static_cast<std::size_t>(n) * 2, few_row = 2048 * 2;
  for (std::int64_t r = 0; r < m; ++r) {
    CAPTURE(r);
    CHECK(std::equal(b_few.begin() + r * few_row, b_few.begin() + (r + 1) * few_row, b.begin() + r * row));
  }
}

GPU_TEST_CASE("linear: split tiles in a CUDA graph captured on a fresh stream, and called on it before any replay") {
  // A new stream's split-K workspace is allocated inside the capture (split_workspace.hpp) and
  // its counters zeroed outside the graph: an eager call on the stream before the graph ever ran
  // must find them at 0 (memory freed full of 0xFF makes a miss visible), and so must each replay.
  {
    void* dirty = nullptr;
    CUDA_CHECK(cudaMalloc(&dirty, std::size_t(64) << 20));
    CUDA_CHECK(cudaMemset(dirty, 0xFF, std::size_t(64) << 20));
    CUDA_CHECK(cudaFree(dirty));
  }
  const DevMatrix a = random_device(DType::bf16, 70, 7168, 1.0);
  const DevMatrix w = random_device(DType::bf16, 1032, 7168, 1.0 / std::sqrt(7168.0));
  const DevMatrix eager = poisoned_output(DType::bf16, 70, 1032), first = poisoned_output(DType::bf16, 70, 1032),
                  replayed = poisoned_output(DType::bf16, 70, 1032);
  REQUIRE(gemm::linear(a.view(), w.view(), eager.out()).ok());
  CHECK_LAUNCH();
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  const Status st = gemm::linear(a.view(), w.view(), replayed.out(), {}, stream);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE_MESSAGE(st.ok(), st.message());
  REQUIRE(gemm::linear(a.view(), w.view(), first.out(), {}, stream).ok());  // before the graph ever ran
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK_LAUNCH();
  CHECK(download_bytes(first) == download_bytes(eager));
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int i = 0; i < 3; ++i) REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK_LAUNCH();
  CHECK(download_bytes(replayed) == download_bytes(eager));
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

GPU_TEST_CASE("split workspace: a per-thread stream handle gets one workspace a host thread") {
  // cudaStreamPerThread names a different stream in each thread: calls on it may run at once.
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  gemm::SplitBuffers mine, again, other;
  REQUIRE(gemm::split_workspace(device, cudaStreamPerThread, 1024, 64, mine).ok());
  REQUIRE(gemm::split_workspace(device, cudaStreamPerThread, 1024, 64, again).ok());
  Status other_status;
  std::thread([&] {
    CUDA_CHECK(cudaSetDevice(device));
    other_status = gemm::split_workspace(device, cudaStreamPerThread, 1024, 64, other);
  }).join();
  REQUIRE(other_status.ok());
  CHECK(mine.arrivals == again.arrivals);
  CHECK(mine.partials == again.partials);
  CHECK(other.arrivals != mine.arrivals);
  CHECK(other.partials != mine.partials);
  std::vector<unsigned> counters(64, 1u);  // new counters start at 0
  CUDA_CHECK(cudaMemcpy(counters.data(), other.arrivals, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(std::all_of(counters.begin(), counters.end(), [](unsigned c) { return c == 0; }));
}

namespace {
// Overwrites x with values from `seed` in [-1, 1): the kernel before a GEMM that reads x, as in
// a model where each linear consumes the previous kernel's output. It lets the next grid start
// at once, so a GEMM launched to overlap it runs beside it.
__global__ void scribble(bf16_t* x, std::int64_t count, unsigned seed) {
  allow_next_grid();
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count; i += gridDim.x * std::int64_t(blockDim.x)) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = __float2bfloat16(static_cast<float>(h & 0xffffu) / 32768.f - 1.f);
  }
}
}  // namespace

GPU_TEST_CASE("linear: launched over the previous kernel (programmatic dependent launch), every call sees its inputs") {
  // The few-row K-segment kernel on narrow tiles is launched to overlap the kernel before it
  // (grid_overlap()); the half-swapped one, which linear's column-local epilogue takes by
  // default, launches plainly. The chain runs on both (forced narrow, then automatic).
  // A chain of three such calls after a kernel that writes their input, each reading what the
  // kernel before it wrote while that one may still run, the last overwriting what the one
  // before it read: x = scribble(seed); y1 = x W1^T; y2 = y1 W2^T; y1 = x W3^T. Each mode, called
  // eagerly and replayed from a CUDA graph (programmatic edges between the nodes), must give the
  // bits of the same chain with a synchronize between calls, checked against float64, in every
  // round (a read before the previous grid's end shows as stale or NaN bits).
  struct Restore {
    gemm::GridOverlap saved = gemm::grid_overlap().load();
    gemm::SegmentTiles tiles = gemm::segment_tiles().load();
    ~Restore() {
      gemm::grid_overlap() = saved;
      gemm::segment_tiles() = tiles;
    }
  } restore;
  const std::int64_t m = 70, k = 6144, n2 = 1032;
  const int sms = gpu_state().sm_count;
  REQUIRE(gemm::split_k_way().load() == gemm::SplitKWay::automatic);
  REQUIRE(gemm::segment_tiles().load() == gemm::SegmentTiles::automatic);
  // FUSEKIT_GEMM_PATH=portable (test_host.cu) runs the same chain on the portable main loop,
  // which has no few-row kernel to check for.
  const bool hopper_plan = gemm::gemm_path().load() == gemm::GemmPath::automatic;
  if (!hopper_plan)
    MESSAGE("portable main loop forced: the few-row K-segment plan is not checked, the chain is");
  else
    for (std::int64_t n : {k, n2}) {  // every call of the chain takes the few-row K-segment kernel
      using Narrow = gemm::HopperNarrowMainLoop<bf16_t>;
      const std::int64_t n_tiles = (n + 127) / 128;
      const gemm::TileOrder order = gemm::detail::tile_order<Narrow>(m, n_tiles);
      const gemm::SplitPlan plan = gemm::detail::segment_plan(order, n_tiles, static_cast<int>(k / 64), sms,
                                                              gemm::SplitKWay::automatic);
      REQUIRE(gemm::k_segmented_weight(n_tiles, k, sms));
      REQUIRE(gemm::detail::few_rows_one_range(plan, m, gemm::kFewRows, order.count(), sms));
    }
  const DevMatrix w1 = random_device(DType::bf16, k, k, 1.0 / std::sqrt(double(k)));
  const DevMatrix w2 = random_device(DType::bf16, n2, k, 1.0 / std::sqrt(double(k)));
  const DevMatrix w3 = random_device(DType::bf16, k, k, 1.0 / std::sqrt(double(k)));
  DevMatrix x = poisoned_output(DType::bf16, m, k), y1 = poisoned_output(DType::bf16, m, k),
            y2 = poisoned_output(DType::bf16, m, n2);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto call = [&](const DevMatrix& a, const DevMatrix& w, const DevMatrix& y) {
    const Status st = gemm::linear(a.view(), w.view(), y.out(), {}, stream);
    REQUIRE_MESSAGE(st.ok(), st.to_string());
  };
  auto scribble_x = [&](unsigned seed) {
    scribble<<<264, 256, 0, stream>>>(static_cast<bf16_t*>(x.buf.get()), m * k, seed);
    CUDA_CHECK(cudaGetLastError());
  };
  for (unsigned round = 0; round < 2; ++round) {
    CAPTURE(round);
    const unsigned seed = static_cast<unsigned>(fresh_seed());
    // The chain with a synchronize after each kernel, each result against float64.
    gemm::grid_overlap() = gemm::GridOverlap::prologue;
    y1.buf.poison(), y2.buf.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    scribble_x(seed);
    CHECK_LAUNCH();
    const Matrix xv = fetch_written(x);
    call(x, w1, y1);
    CHECK_LAUNCH();
    const Matrix y1v = fetch_written(y1);
    call(y1, w2, y2);
    CHECK_LAUNCH();
    const Matrix y2v = fetch_written(y2);
    call(x, w3, y1);
    CHECK_LAUNCH();
    const auto rows = sample_rows(m, fresh_seed());
    check_close(y1v, ref_gemm(xv, w1.host, rows), "y1 = x W1^T");
    check_close(y2v, ref_gemm(y1v, w2.host, rows), "y2 = y1 W2^T");
    check_close(fetch_written(y1), ref_gemm(xv, w3.host, rows), "y1 = x W3^T");
    const auto want_y2 = download_bytes(y2), want_y1 = download_bytes(y1);
    for (gemm::SegmentTiles tiles : {gemm::SegmentTiles::narrow, gemm::SegmentTiles::automatic})
    for (gemm::GridOverlap overlap : {gemm::GridOverlap::none, gemm::GridOverlap::prologue, gemm::GridOverlap::weights}) {
      CAPTURE(int(tiles));
      CAPTURE(int(overlap));
      gemm::segment_tiles() = tiles;  // the same bits on either
      gemm::grid_overlap() = overlap;
      auto chain = [&] {
        scribble_x(seed);
        call(x, w1, y1);
        call(y1, w2, y2);
        call(x, w3, y1);
      };
      for (int repeat = 0; repeat < 3; ++repeat) {
        y1.buf.poison(), y2.buf.poison();
        CUDA_CHECK(cudaDeviceSynchronize());
        chain();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CHECK_LAUNCH();
        CHECK(download_bytes(y2) == want_y2);
        CHECK(download_bytes(y1) == want_y1);
      }
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      chain();
      CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      for (int replay = 0; replay < 2; ++replay) {
        y1.buf.poison(), y2.buf.poison();
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CHECK_LAUNCH();
        CHECK(download_bytes(y2) == want_y2);
        CHECK(download_bytes(y1) == want_y1);
      }
      CUDA_CHECK(cudaGraphExecDestroy(exec));
      CUDA_CHECK(cudaGraphDestroy(graph));
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

GPU_TEST_CASE("linear: a rejected call writes nothing") {
  const DevMatrix a = random_device(DType::bf16, 8, 16, 1.0);
  const DevMatrix w = random_device(DType::bf16, 16, 16, 1.0);
  const DevMatrix out = poisoned_output(DType::bf16, 8, 16);
  const Status st = gemm::linear(a.view(), w.view(), {out.buf.get(), DType::bf16, 8, 8, 0});  // wrong width
  CHECK(st.code() == Errc::bad_shape);
  CHECK_LAUNCH();
  const auto bytes = download_bytes(out);
  CHECK(std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0xFF; }));
}

// ---- argument checks (CPU; validation_testing.hpp) ----
namespace validation_cases {
using namespace fusekit;
using namespace fusekit::gemm;
using namespace fusekit::test::validation;

TEST_CASE("linear: a valid call gets past validation; M = 0 is a no-op that needs no GPU") {
  const ConstRows empty_a{nullptr, DType::bf16, 0, K, 0};
  const Rows empty_out{nullptr, DType::bf16, 0, N, 0};
  CHECK(linear(empty_a, w_ok(), empty_out).ok());
  CHECK_PASSES_VALIDATION(linear(a_ok(), w_ok(), out_ok()));
}

TEST_CASE("linear: operand checks") {
  CHECK(linear({at(0), DType::f32, M, K, 0}, w_ok(), out_ok()).code() == Errc::unsupported_dtype);
  CHECK(linear(a_ok(), {at(4096), DType::f16, N, K, 0}, out_ok()).code() == Errc::unsupported_dtype);
  CHECK(linear({nullptr, DType::bf16, M, K, 0}, w_ok(), out_ok()).code() == Errc::null_pointer);
  CHECK(linear(a_ok(), {nullptr, DType::bf16, N, K, 0}, out_ok()).code() == Errc::null_pointer);
  CHECK(linear({at(0), DType::bf16, M, 12, 0}, {at(4096), DType::bf16, N, 12, 0}, out_ok()).code() ==
        Errc::bad_shape);  // K = 12
  CHECK(linear(a_ok(), {at(4096), DType::bf16, 20, K, 0}, {at(16384), DType::bf16, M, 20, 0}).code() ==
        Errc::bad_shape);  // N = 20
  CHECK(linear(a_ok(), {at(4096), DType::bf16, N, 24, 0}, out_ok()).code() == Errc::bad_shape);  // K mismatch
  CHECK(linear({at(0), DType::bf16, -1, K, 0}, w_ok(), out_ok()).code() == Errc::bad_shape);
  CHECK(linear({at(8), DType::bf16, M, K, 0}, w_ok(), out_ok()).code() == Errc::misaligned);  // 8-byte aligned only
  CHECK(linear({at(0), DType::bf16, M, K, 20}, w_ok(), out_ok()).code() == Errc::misaligned);  // 40-byte rows
  CHECK(linear(a_ok(), {at(4098), DType::bf16, N, K, 0}, out_ok()).code() == Errc::misaligned);
  CHECK(linear(a_ok(), {at(4096), DType::bf16, N, K, 12}, out_ok()).code() == Errc::bad_shape);  // stride < cols
  const Status s = linear(a_ok(), {at(4096), DType::bf16, 20, K, 0}, {at(16384), DType::bf16, M, 20, 0});
  CHECK(s.message() == "linear: N = w.rows (20) must be a positive multiple of 8");
}

TEST_CASE("linear: output and bias checks") {
  CHECK(linear(a_ok(), w_ok(), {at(16384), DType::bf16, M, N + 8, 0}).code() == Errc::bad_shape);
  CHECK(linear(a_ok(), w_ok(), {at(16384), DType::bf16, M + 1, N, 0}).code() == Errc::bad_shape);
  CHECK(linear(a_ok(), w_ok(), {at(16384), DType::f16, M, N, 0}).code() == Errc::unsupported_dtype);
  CHECK(linear(a_ok(), w_ok(), {nullptr, DType::bf16, M, N, 0}).code() == Errc::null_pointer);
  CHECK(linear(a_ok(), w_ok(), {at(16392), DType::bf16, M, N, 0}).code() == Errc::misaligned);
  CHECK_PASSES_VALIDATION(linear(a_ok(), w_ok(), {at(16384), DType::f32, M, N, 0}));  // f32 output allowed
  LinearOptions bad_bias;
  bad_bias.bias = {at(32768), DType::bf16, N - 8};
  CHECK(linear(a_ok(), w_ok(), out_ok(), bad_bias).code() == Errc::bad_shape);
  bad_bias.bias = {at(32768), DType::f32, N};
  CHECK(linear(a_ok(), w_ok(), out_ok(), bad_bias).code() == Errc::unsupported_dtype);
}

TEST_CASE("linear: outputs may not overlap the operands") {
  CHECK(linear(a_ok(), w_ok(), {at(0), DType::bf16, M, N, 0}).code() == Errc::aliasing);     // over a
  CHECK(linear(a_ok(), w_ok(), {at(4096 + 32), DType::bf16, M, N, 0}).code() == Errc::aliasing);  // inside w
  LinearOptions opt;
  opt.bias = {at(16384 + 64), DType::bf16, N};  // every CTA of a column reads the bias its output overwrites
  const Status s = linear(a_ok(), w_ok(), out_ok(), opt);
  CHECK(s.code() == Errc::aliasing);
  CHECK(s.message() == "linear: out overlaps bias (they must be disjoint)");
}

TEST_CASE("linear: a null bias with a size is an error, not an absent bias") {
  LinearOptions opt;
  opt.bias = {nullptr, DType::bf16, N};
  CHECK(linear(a_ok(), w_ok(), out_ok(), opt).code() == Errc::null_pointer);
  opt.bias = {nullptr, DType::bf16, 0};
  CHECK_PASSES_VALIDATION(linear(a_ok(), w_ok(), out_ok(), opt));
  opt.bias = {at(32768), static_cast<DType>(5), N};
  CHECK(linear(a_ok(), w_ok(), out_ok(), opt).code() == Errc::unsupported_dtype);
}

TEST_CASE("linear: M and K stay below 2^31 by a tile (the copy engine's coordinates are 32-bit)") {
  // Validation never touches memory, so far-away addresses stand in for huge buffers.
  const auto far = [](std::uint64_t gib) { return reinterpret_cast<void*>(gib << 30); };
  const std::int64_t big_m = (std::int64_t(1) << 31) - 255;
  Status s = linear({far(64), DType::bf16, big_m, 8, 0}, {far(1), DType::bf16, 8, 8, 0},
                    {far(256), DType::bf16, big_m, 8, 0});
  CHECK(s.code() == Errc::too_large);
  CHECK(s.message() == "linear: M (2147483393) exceeds 2147483392");
  CHECK_PASSES_VALIDATION(linear({far(64), DType::bf16, big_m - 1, 8, 0}, {far(1), DType::bf16, 8, 8, 0},
                                 {far(256), DType::bf16, big_m - 1, 8, 0}));
  const std::int64_t big_k = (std::int64_t(1) << 31) - 56;
  s = linear({far(64), DType::bf16, 1, big_k, 0}, {far(128), DType::bf16, 8, big_k, 0}, {far(1), DType::bf16, 1, 8, 0});
  CHECK(s.code() == Errc::too_large);
  CHECK(s.message() == "linear: K (2147483592) exceeds 2147483584");
}

TEST_CASE("linear: one row of A needs no 16-byte row stride (a row of a padded batch)") {
  CHECK_PASSES_VALIDATION(linear({at(0), DType::bf16, 1, K, K + 4}, w_ok(), {at(16384), DType::bf16, 1, N, 0}));
  CHECK(linear({at(0), DType::bf16, 2, K, K + 4}, w_ok(), {at(16384), DType::bf16, 2, N, 0}).code() ==
        Errc::misaligned);
}

}  // namespace validation_cases
