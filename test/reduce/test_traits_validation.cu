// CPU tests: the row layout chosen from N and dtype, and argument validation (no GPU needed:
// every check runs before any device work).
#include <doctest/doctest.h>

#include "fusekit/reduce.hpp"
#include "support/restore.hpp"

using namespace fusekit;
using namespace fusekit::reduce;

// The aligned agent's slots hold an aligned row; with the general agent's spilled vector (clusters:
// none, they are sized on the span) they hold the row at its worst misalignment.
static void require_row_fits(const RowConfig& c, std::int64_t n, DType t) {
  const int vec = elements_per_vector(t);
  const std::int64_t slots = std::int64_t(c.cluster) * c.threads_per_row * c.chunks();
  REQUIRE(slots * vec >= n);
  REQUIRE((slots + (c.shape == RowShape::cluster ? 0 : 1)) * vec >= n + vec - 1);
  REQUIRE(c.threads_per_row >= 4);
  REQUIRE(c.threads_per_row <= max_threads_of(c.shape));
  if (c.threads_per_row < 32) REQUIRE((c.threads_per_row & (c.threads_per_row - 1)) == 0);
  else REQUIRE(c.threads_per_row % 32 == 0);
  REQUIRE((c.shape == RowShape::cluster) == (c.cluster > 1));
  REQUIRE(c.cluster <= kMaxCluster);
  REQUIRE(c.vectors == select_row_config(n, t).vectors);
}

TEST_CASE("select_row_config: every row fits, thread counts are launchable") {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    for (std::int64_t n = 1; n <= max_cols(t); n = n < 4096 ? n + 1 : n + n / 7 + 1) {
      INFO("dtype " << dtype_name(t) << " N " << n);
      require_row_fits(select_row_config(n, t), n, t);
    }
    CHECK(select_row_config(max_cols(t), t).cluster == kMaxCluster);
  }
}

TEST_CASE("row_config_with_chunks: the sweep's layouts fit too, and keep the default where they cannot") {
  for (DType t : {DType::f32, DType::bf16})
    for (int chunks : {2, 4, 8})
      for (std::int64_t n = 1; n <= 20000; n = n < 2048 ? n + 1 : n + n / 7 + 1) {
        INFO("dtype " << dtype_name(t) << " N " << n << " chunks " << chunks);
        const RowConfig c = row_config_with_chunks(n, t, chunks);
        require_row_fits(c, n, t);
        if (c.shape != select_row_config(n, t).shape || c.threads_per_row != select_row_config(n, t).threads_per_row)
          REQUIRE(c.chunks() == chunks);
      }
  const RowConfig four = row_config_with_chunks(1537, DType::bf16, 4);
  CHECK((four.shape == RowShape::block && four.threads_per_row == 64));
  const RowConfig eight = row_config_with_chunks(1537, DType::bf16, 8);
  CHECK((eight.shape == RowShape::wide && eight.threads_per_row == 32));
  CHECK(row_config_with_chunks(8192, DType::bf16, 2).threads_per_row == 256);  // 512 at 2: the default's
  CHECK(row_config_with_chunks(8192, DType::bf16, 2).chunks() == 4);
}

TEST_CASE("select_row_config: the layouts the benchmarks rely on") {
  CHECK(select_row_config(128, DType::bf16).shape == RowShape::sub_warp);
  CHECK(select_row_config(1537, DType::bf16).shape == RowShape::warps);
  CHECK(select_row_config(5376, DType::bf16).shape == RowShape::block);
  CHECK(select_row_config(16384, DType::bf16).shape == RowShape::wide);
  CHECK(select_row_config(8192, DType::f32).shape == RowShape::wide);
  CHECK(select_row_config(16384, DType::f32).cluster == 2);
  // At most 256 threads a row, power-of-two rows on power-of-two thread counts (RESULTS.md,
  // nineteenth session).
  CHECK(select_row_config(1024, DType::bf16).threads_per_row == 64);
  CHECK(select_row_config(4096, DType::bf16).threads_per_row == 256);
  CHECK(select_row_config(8192, DType::bf16).threads_per_row == 256);
  CHECK(select_row_config(5376, DType::bf16).threads_per_row == 192);
  CHECK(select_row_config(16384, DType::bf16).threads_per_row == 256);
  for (DType t : {DType::f32, DType::bf16}) {
    const RowConfig long_row = select_row_config(262144, t);
    CHECK(long_row.shape == RowShape::cluster);
    CHECK(long_row.cluster * 8 >= 100);  // 8 rows of 262144 occupy most of 132 SMs
  }
  CHECK(max_cols(DType::f32) == 294908);
  CHECK(max_cols(DType::bf16) == 589816);
}

TEST_CASE("rows_per_cta: fills the GPU for few rows, keeps whole warps") {
  const RowConfig c = select_row_config(64, DType::bf16);  // 4..8 threads per row
  CHECK(rows_per_cta(c, 37, 132) * c.threads_per_row >= 32);
  CHECK(rows_per_cta(c, 1 << 20, 132) * c.threads_per_row == 256);
  for (std::int64_t n : {1, 7, 1537, 4096, 9000, 20000, 262144})
    for (DType t : {DType::f32, DType::bf16})
      for (std::int64_t m : {1, 37, 4096}) {
        const RowConfig cfg = select_row_config(n, t);
        const int per = rows_per_cta(cfg, m, 132);
        REQUIRE(per >= 1);
        REQUIRE(per * cfg.threads_per_row <= max_threads_of(cfg.shape));
        if (cfg.threads_per_row < 32) REQUIRE(per * cfg.threads_per_row % 32 == 0);
      }
}

TEST_CASE("select_staged_layout: rows fit their stage, thread counts are launchable") {
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (bool residual : {false, true})
      for (std::int64_t n = 1; n <= 40000; n = n < 2048 ? n + 1 : n + n / 11 + 1) {
        INFO("dtype " << dtype_name(t) << " N " << n << " residual " << residual);
        if (!staged_fits(n, t, residual)) continue;
        const RowConfig cfg = select_row_config(n, t);
        CHECK(cfg.shape != RowShape::sub_warp);
        const StagedLayout l = select_staged_layout(n, t, residual);
        REQUIRE(l.threads >= 64);
        REQUIRE(l.threads <= kMaxStagedThreads);
        REQUIRE(l.threads % 32 == 0);
        if (registers_match_staged(n, t)) REQUIRE(l.threads == cfg.threads_per_row);  // same bits
        REQUIRE(l.residual_offset % 128 == 0);
        REQUIRE(l.residual_offset >= n * std::int64_t(dtype_size(t)));
        REQUIRE(l.stage_bytes == l.residual_offset * (residual ? 2 : 1));
        REQUIRE(l.stage_bytes <= kMaxStagedStageBytes);
      }
  // Rows the register kernels split over clusters are staged; softmax's others from 20 KB on, the
  // norms' (an epilogue) never.
  CHECK(staged_fits(16384, DType::f32, false));
  for (bool epilogue : {false, true}) {
    CHECK(staged_is_faster(16384, DType::f32, epilogue));
    CHECK_FALSE(staged_is_faster(4096, DType::f32, epilogue));
    CHECK_FALSE(staged_is_faster(5376, DType::bf16, epilogue));  // the H3 norms: registers measured faster
    CHECK_FALSE(staged_is_faster(8192, DType::bf16, epilogue));
  }
  CHECK(staged_is_faster(16384, DType::bf16, false));
  CHECK_FALSE(staged_is_faster(16384, DType::bf16, true));
  CHECK(staged_is_faster(5376, DType::f32, false));
  CHECK_FALSE(staged_is_faster(5376, DType::f32, true));
  CHECK_FALSE(staged_is_faster(8192, DType::f32, true));
  CHECK(staged_fits(5376, DType::bf16, true));
  CHECK_FALSE(staged_fits(16384, DType::f32, true));  // with its residual: two 64 KB rows
  CHECK_FALSE(staged_fits(128, DType::bf16, false));   // short rows: many to a CTA in registers
  CHECK_FALSE(staged_fits(65536, DType::bf16, false));
}

TEST_CASE("select_sliced_layout: slices cover the row, fit shared memory, come from N and the dtype alone") {
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (int slice_kb : {0, 16, 32, 64})
      for (int per_thread : {0, 1, 2, 4, 16})
        for (std::int64_t n = 9000; n <= max_cols(t); n += n / 7 + 1) {
          const std::int64_t cols = n + 64 <= max_cols(t) ? n : max_cols(t);  // the last step lands on the maximum
          INFO("dtype " << dtype_name(t) << " N " << cols << " slice " << slice_kb << " KB, " << per_thread << " vectors a thread");
          CHECK(sliced_fits(cols, t, true) == (select_row_config(cols, t).shape == RowShape::cluster && !staged_fits(cols, t, true)));
          if (!sliced_fits(cols, t, true)) continue;
          const RowConfig cfg = select_row_config(cols, t);
          const StagedLayout a = select_sliced_layout(cols, t, false, slice_kb << 10, per_thread);
          const StagedLayout b = select_sliced_layout(cols, t, true, slice_kb << 10, per_thread);
          // The vectors a thread pick the threads only, never the slices.
          REQUIRE(a.slice_vectors == select_sliced_layout(cols, t, false, slice_kb << 10).slice_vectors);
          REQUIRE(a.cluster == b.cluster);  // the residual changes the stage, never the row's layout (bits)
          REQUIRE(a.threads == b.threads);
          REQUIRE(a.slice_vectors == b.slice_vectors);
          REQUIRE(a.cluster >= 2);
          REQUIRE(a.cluster <= kMaxCluster);
          REQUIRE((a.cluster & (a.cluster - 1)) == 0);
          REQUIRE(std::int64_t(a.slice_vectors) * a.cluster >= cfg.vectors - 1);  // an aligned row's vectors
          // The last CTA takes the rest: at most one vector more (a row off its alignment).
          REQUIRE(cfg.vectors - std::int64_t(a.slice_vectors) * (a.cluster - 1) <= a.slice_vectors + 1);
          const int target = slice_kb > 0 ? slice_kb << 10 : slice_bytes_for(cols * std::int64_t(dtype_size(t)));
          if (a.cluster < kMaxCluster) REQUIRE(a.slice_vectors * 16 <= target);
          REQUIRE(a.threads % 32 == 0);
          const int asked = per_thread == 0 ? kSliceVectorsPerThread : per_thread;
          const int cap = asked < kSliceVectorsPerThread ? kMaxSlicedThreads : kMaxStagedThreads;
          REQUIRE(a.threads <= cap);
          REQUIRE(a.threads - 32 < a.slice_vectors);  // no warp without a vector
          if (a.threads < cap) REQUIRE(std::int64_t(a.threads) * asked >= a.slice_vectors);  // at most `asked` a thread
          REQUIRE(a.residual_offset % 128 == 0);
          REQUIRE(a.residual_offset >= (a.slice_vectors + 1) * 16);  // the last CTA's vector more
          REQUIRE(b.stage_bytes == 2 * b.residual_offset);
          REQUIRE(b.stage_bytes <= kMaxSlicedStageBytes);
          if (cols == max_cols(t)) break;
        }
  // The longest row fills a 16-CTA cluster; 8 rows of 262144 f32 elements spread over 128 SMs.
  CHECK(select_sliced_layout(max_cols(DType::f32), DType::f32, true).cluster == 16);
  CHECK(select_sliced_layout(262144, DType::f32, false).cluster == 16);
  CHECK(select_sliced_layout(262144, DType::f32, false).threads == 512);
  CHECK(select_sliced_layout(65536, DType::bf16, false).cluster == 2);   // 64 KB slices under 512 KB rows
  CHECK(select_sliced_layout(65536, DType::f32, false).cluster == 4);
  CHECK(select_sliced_layout(262144, DType::bf16, false).cluster == 16);  // 32 KB slices from 512 KB rows
  CHECK(select_sliced_layout(65536, DType::bf16, false, 32 << 10).cluster == 4);
  CHECK(select_sliced_layout(262144, DType::bf16, false).threads == 256);              // 2048 vectors, 8 a thread
  // The narrow kernel (five CTAs an SM): bf16 N = 262144's 32 KB slices, not with a residual or
  // staged parameters (64 KB and more a CTA), nor 512-thread or 64 KB slices.
  CHECK(takes_narrow_slices(select_sliced_layout(262144, DType::bf16, false), DType::bf16));
  CHECK(takes_narrow_slices(select_sliced_layout(262144, DType::f16, false), DType::f16));
  CHECK_FALSE(takes_narrow_slices(select_sliced_layout(262144, DType::bf16, true), DType::bf16));
  CHECK_FALSE(takes_narrow_slices(with_staged_params(select_sliced_layout(262144, DType::bf16, false), 1), DType::bf16));
  CHECK_FALSE(takes_narrow_slices(select_sliced_layout(262144, DType::f32, false), DType::f32));
  CHECK_FALSE(takes_narrow_slices(select_sliced_layout(65536, DType::bf16, false), DType::bf16));
  CHECK_FALSE(takes_narrow_slices(select_sliced_layout(65536, DType::f32, false, 0, 16), DType::f32));  // f32 softmax: 256 threads, 64 KB
  // f32 never, whatever the layout: its narrow kernel is not compiled.
  CHECK_FALSE(takes_narrow_slices(select_sliced_layout(262144, DType::bf16, false), DType::f32));
  // ... taken where it holds enough more clusters at once to save a wave (an H100: 28 and 35).
  CHECK_FALSE(narrow_saves_waves(28, 28, 35));
  CHECK(narrow_saves_waves(29, 28, 35));
  CHECK(narrow_saves_waves(35, 28, 35));
  CHECK_FALSE(narrow_saves_waves(36, 28, 35));  // two waves either way
  CHECK_FALSE(narrow_saves_waves(56, 28, 35));
  CHECK(narrow_saves_waves(57, 28, 35));
  CHECK_FALSE(narrow_saves_waves(29, 28, 28));
  CHECK_FALSE(narrow_saves_waves(29, -1, 35));  // unknown
  CHECK(select_sliced_layout(262144, DType::bf16, false, 0, 2).threads == 1024);       // 2 vectors a thread
  CHECK(select_sliced_layout(262144, DType::bf16, false, 0, 2).cluster == 16);         // the same slices
  CHECK(select_sliced_layout(262144, DType::f32, false, 0, 2).threads == 1024);        // capped: 4 a thread
  CHECK(select_sliced_layout(max_cols(DType::f32), DType::f32, false).threads == 512);  // the default's cap
  CHECK(select_sliced_layout(max_cols(DType::f32), DType::f32, true, 1 << 20).stage_bytes <= kMaxSlicedStageBytes);  // clamped
  CHECK(select_sliced_layout(65536, DType::bf16, false, 1).cluster == select_sliced_layout(65536, DType::bf16, false, 16 << 10).cluster);
  // The dispatch's default: 16 vectors a thread for f32 rows without an epilogue (softmax), else 8;
  // from the dtype and the op only.
  CHECK(sliced_vectors_per_thread(DType::f32, false) == 16);
  CHECK(sliced_vectors_per_thread(DType::f32, true) == kSliceVectorsPerThread);
  CHECK(sliced_vectors_per_thread(DType::bf16, false) == kSliceVectorsPerThread);
  CHECK(sliced_vectors_per_thread(DType::f16, true) == kSliceVectorsPerThread);
  CHECK(select_sliced_layout(262144, DType::f32, false, 0, 16).threads == 256);  // 4096 vectors a slice, 16 a thread
  CHECK(select_sliced_layout(65536, DType::f32, false, 0, 16).threads == 256);   // 4 slices of 4096
  CHECK(select_sliced_layout(65536, DType::f32, false, 0, 16).cluster == select_sliced_layout(65536, DType::f32, false).cluster);
  CHECK_FALSE(sliced_fits(16384, DType::f32, false));  // one stage holds it
  CHECK(sliced_fits(16384, DType::f32, true));         // not with its residual
  CHECK_FALSE(sliced_fits(8192, DType::bf16, true));   // the register kernels hold it in one CTA
}

TEST_CASE("residual_stages_alike: decided by residues only, alike for a row alone and in a call") {
  RowParams p;
  p.in = reinterpret_cast<const void*>(std::uintptr_t(1) << 32);
  p.in_stride = 1537;
  CHECK(residual_stages_alike(p, 2));  // no residual
  p.residual = reinterpret_cast<const void*>((std::uintptr_t(1) << 33) + 32);
  p.residual_stride = 1537;
  CHECK(residual_stages_alike(p, 2));
  p.residual_stride = 1537 + 8;  // 16 bytes more per row: every row still alike
  CHECK(residual_stages_alike(p, 2));
  p.residual_stride = 1538;
  CHECK_FALSE(residual_stages_alike(p, 2));
  p.residual_stride = 1537;
  p.residual = static_cast<const char*>(p.residual) + 2;
  CHECK_FALSE(residual_stages_alike(p, 2));
}

namespace {
// A 132-SM sm_90 GPU with 227 KB of shared memory a CTA (the H200), for host-side choices.
DeviceInfo fake_h200() {
  DeviceInfo h200;
  h200.major = 9;
  h200.sm_count = 132;
  h200.max_smem_per_block_optin = 227 * 1024;
  return h200;
}
}  // namespace

TEST_CASE("stages_params: vector-aligned calls with parameters whose stage fits; automatically 16-bit rows of one wave only") {
  const fusekit::test::RestoreOnExit restore(sliced_params());
  const DeviceInfo h200 = fake_h200();
  RowParams p;
  p.vectors_aligned = true;
  p.weight = reinterpret_cast<const void*>(std::uintptr_t(1) << 32);
  p.rows = 8;
  const StagedLayout bf16 = select_sliced_layout(262144, DType::bf16, false);  // 16 CTAs of 32 KB slices
  CHECK(stages_params(p, DType::bf16, bf16, 2, h200));                          // 8 x 16 CTAs: one wave
  const StagedLayout f32 = select_sliced_layout(262144, DType::f32, false);
  CHECK_FALSE(stages_params(p, DType::f32, f32, 2, h200));  // f32 rows ran slower staged
  const StagedLayout staged = with_staged_params(bf16, 2);
  CHECK(staged.params_offset == bf16.stage_bytes);
  CHECK(staged.stage_bytes == bf16.stage_bytes + 2 * bf16.residual_offset);
  CHECK(staged.cluster == bf16.cluster);  // the row's layout, so its bits, unchanged
  CHECK(staged.threads == bf16.threads);
  CHECK(staged.slice_vectors == bf16.slice_vectors);
  // The device says how many of the staged layout's clusters it runs at once: as many rows as
  // that are one wave, whatever the SM count says.
  CHECK(stages_params(p, DType::bf16, bf16, 2, h200, 8));
  CHECK_FALSE(stages_params(p, DType::bf16, bf16, 2, h200, 7));
  p.rows = 9;  // 144 CTAs: more than the SMs
  CHECK_FALSE(stages_params(p, DType::bf16, bf16, 2, h200));
  CHECK(stages_params(p, DType::bf16, bf16, 2, h200, 21));
  CHECK_FALSE(stages_params(p, DType::f32, f32, 2, h200, 21));
  sliced_params() = SlicedParams::always;
  CHECK(stages_params(p, DType::bf16, bf16, 2, h200));
  CHECK(stages_params(p, DType::f32, f32, 2, h200));
  sliced_params() = SlicedParams::never;
  p.rows = 1;
  CHECK_FALSE(stages_params(p, DType::bf16, bf16, 2, h200));
  sliced_params() = SlicedParams::always;
  // Where it cannot: no parameters, a call off the vector alignment, a stage past the opt-in.
  const void* weight = p.weight;
  p.weight = nullptr;
  CHECK_FALSE(stages_params(p, DType::bf16, bf16, 2, h200));
  p.bias = weight;  // the bias alone
  CHECK(stages_params(p, DType::bf16, bf16, 2, h200));
  p.vectors_aligned = false;
  CHECK_FALSE(stages_params(p, DType::bf16, bf16, 2, h200));
  p.vectors_aligned = true;
  const StagedLayout with_residual = select_sliced_layout(max_cols(DType::f32), DType::f32, true);  // 2 x 72 KB
  CHECK_FALSE(stages_params(p, DType::f32, with_residual, 2, h200));
  CHECK(stages_params(p, DType::f32, f32, 2, h200));  // 3 x 64 KB
  CHECK_FALSE(stages_params(p, DType::f32, select_sliced_layout(262144, DType::f32, true), 2, h200));  // 4 x 64 KB
}

namespace {
// validate() never dereferences: distant fake addresses stand for device buffers.
float* const host_in = reinterpret_cast<float*>(std::uintptr_t(1) << 32);
float* const host_out = reinterpret_cast<float*>(std::uintptr_t(1) << 36);
template <class Policy> Status check(ConstRows in, Rows out, NormOptions o = {}) {
  RowParams p;
  return validate<Policy>(in, out, o, p);
}
// The kernel parameters of a LayerNorm call that validate() accepts.
RowParams validated(ConstRows in, Rows out, NormOptions o = {}) {
  RowParams p;
  REQUIRE(validate<LayerNormPolicy>(in, out, o, p).ok());
  return p;
}
}  // namespace

TEST_CASE("validate: fills the kernel parameters, 1 / cols rounded once") {
  for (const std::int64_t cols : {1, 3, 1537, 5376, 262144}) {
    const RowParams p = validated({host_in, DType::f32, 2, cols, 0}, {host_out, DType::f32, 2, cols, 0});
    CHECK(p.cols == cols);
    CHECK(p.inv_cols == 1.f / float(cols));
    CHECK(p.rows == 2);
  }
}

TEST_CASE("validate: the test-free vector path only where every row and parameter is vector-aligned") {
  auto aligned = [](ConstRows in, Rows out, NormOptions o = {}) { return validated(in, out, o).vectors_aligned; };
  auto* const in_bf16 = reinterpret_cast<const char*>(host_in);
  auto* const out_bf16 = reinterpret_cast<char*>(host_out);
  const ConstRows in{in_bf16, DType::bf16, 4, 4096, 0};
  const Rows out{out_bf16, DType::bf16, 4, 4096, 0};
  CHECK(aligned(in, out));
  CHECK(aligned(in, {out_bf16, DType::f32, 4, 4096, 0}));                  // wider output rows
  CHECK_FALSE(aligned({in_bf16, DType::bf16, 4, 1537, 0}, {out_bf16, DType::bf16, 4, 1537, 0}));  // odd N
  CHECK_FALSE(aligned({in_bf16 + 2, DType::bf16, 4, 4096, 0}, out));        // row 0 off 16 bytes
  CHECK_FALSE(aligned({in_bf16, DType::bf16, 4, 4096, 4100}, out));         // rows 1.. off 16 bytes
  CHECK(aligned({in_bf16, DType::bf16, 4, 4096, 4104}, out));               // stride of whole vectors
  CHECK_FALSE(aligned(in, {out_bf16 + 8, DType::bf16, 4, 4096, 0}));
  NormOptions o;
  o.weight = {in_bf16 + (1 << 20), DType::bf16, 4096};
  CHECK(aligned(in, out, o));
  o.weight.dtype = DType::f32;  // parameters in another dtype take the general path
  CHECK_FALSE(aligned(in, out, o));
  o.weight = {in_bf16 + (1 << 20) + 2, DType::bf16, 4096};
  CHECK_FALSE(aligned(in, out, o));
  o = {};
  o.bias = {in_bf16 + (1 << 20) + 8, DType::bf16, 4096};
  CHECK_FALSE(aligned(in, out, o));

  // Narrower output vectors need only their own size: f32 rows of 4 elements -> 8 bytes of bf16.
  const ConstRows in_f32{in_bf16, DType::f32, 4, 4096, 0};
  CHECK(aligned(in_f32, {out_bf16 + 8, DType::bf16, 4, 4096, 0}));
  CHECK_FALSE(aligned(in_f32, {out_bf16 + 4, DType::bf16, 4, 4096, 0}));
  CHECK_FALSE(aligned(in_f32, {out_bf16, DType::bf16, 4, 4096, 4098}));  // rows 4 bytes apart from 8

  // Residual and residual_out rows.
  auto* const res = in_bf16 + (1 << 22);
  auto* const res_out = out_bf16 + (1 << 22);
  o = {};
  o.residual = {res, DType::bf16, 4, 4096, 0};
  CHECK(aligned(in, out, o));
  o.residual_out = {res_out, DType::bf16, 4, 4096, 0};
  CHECK(aligned(in, out, o));
  o.residual_out = {res_out + 4, DType::bf16, 4, 4096, 0};
  CHECK_FALSE(aligned(in, out, o));
  o.residual_out = {};
  o.residual = {res + 2, DType::bf16, 4, 4096, 0};
  CHECK_FALSE(aligned(in, out, o));

  // The modulation table: its dtype, its rows' alignment.
  auto* const table = in_bf16 + (1 << 24);
  const auto* const index = reinterpret_cast<const std::int32_t*>(in_bf16 + (1 << 26));
  o = {};
  o.modulation = {table, table + 2 * 4096, DType::bf16, 6, 2 * 4096 + 8, index};
  CHECK(aligned(in, out, o));
  o.modulation.stride = 2 * 4096 + 1;  // table rows 2 bytes apart from 16
  CHECK_FALSE(aligned(in, out, o));
  o.modulation = {table, table + 2 * 4096, DType::f32, 6, 2 * 4096 + 8, index};
  CHECK_FALSE(aligned(in, out, o));
  o.modulation = {table, table + 2 * 4096 + 2, DType::bf16, 6, 2 * 4096 + 8, index};
  CHECK_FALSE(aligned(in, out, o));
}

TEST_CASE("validate: parameters read whole by rows at any alignment (the phased kernels)") {
  auto params_aligned = [](ConstRows in, Rows out, NormOptions o = {}) { return validated(in, out, o).params_aligned; };
  auto* const in_bf16 = reinterpret_cast<const char*>(host_in);
  auto* const out_bf16 = reinterpret_cast<char*>(host_out);
  const ConstRows odd{in_bf16 + 2, DType::bf16, 4, 1537, 0};  // rows at every alignment
  const Rows out{out_bf16 + 6, DType::bf16, 4, 1537, 0};
  CHECK(params_aligned(odd, out));  // no parameters
  NormOptions o;
  o.weight = {in_bf16 + (1 << 20), DType::bf16, 1537};
  o.bias = {in_bf16 + (1 << 21), DType::bf16, 1537};
  CHECK(params_aligned(odd, out, o));
  o.bias.dtype = DType::f32;  // a parameter in another dtype: general
  CHECK_FALSE(params_aligned(odd, out, o));
  o.bias = {in_bf16 + (1 << 21) + 2, DType::bf16, 1537};  // off its 16 bytes: general
  CHECK_FALSE(params_aligned(odd, out, o));
  o = {};
  auto* const table = in_bf16 + (1 << 24);
  const auto* const index = reinterpret_cast<const std::int32_t*>(in_bf16 + (1 << 26));
  o.modulation = {table, table + 2 * 1544, DType::bf16, 6, 1544, index};
  CHECK(params_aligned(odd, out, o));
  o.modulation.stride = 1537;  // table rows 2 bytes apart from 16
  CHECK_FALSE(params_aligned(odd, out, o));
  // Aligned calls are params_aligned too; the dispatch takes their test-free kernels first.
  RowParams p;
  REQUIRE(validate<LayerNormPolicy>({in_bf16, DType::bf16, 4, 4096, 0}, {out_bf16, DType::bf16, 4, 4096, 0}, {}, p).ok());
  CHECK(p.vectors_aligned);
  CHECK(p.params_aligned);
}

TEST_CASE("validate: each rule gives its own error") {
  const ConstRows in{host_in, DType::bf16, 16, 128, 0};
  const Rows out{host_out, DType::bf16, 16, 128, 0};
  CHECK(check<RmsNormPolicy>(in, out).ok());
  CHECK(check<RmsNormPolicy>({nullptr, DType::bf16, 16, 128, 0}, out).code() == Errc::null_pointer);
  CHECK(check<RmsNormPolicy>({nullptr, DType::bf16, 0, 128, 0}, {nullptr, DType::bf16, 0, 128, 0}).ok());
  CHECK(check<RmsNormPolicy>({host_in, DType::bf16, 16, 128, 100}, out).code() == Errc::bad_shape);
  CHECK(check<RmsNormPolicy>(in, {host_out, DType::bf16, 15, 128, 0}).code() == Errc::bad_shape);
  CHECK(check<RmsNormPolicy>({reinterpret_cast<char*>(host_in) + 1, DType::bf16, 1, 8, 0}, {host_out, DType::bf16, 1, 8, 0}).code() ==
        Errc::misaligned);
  CHECK(check<SoftmaxPolicy>({host_in, DType::f32, 1, 294909, 0}, {host_out, DType::f32, 1, 294909, 0}).code() ==
        Errc::too_large);
  CHECK(check<SoftmaxPolicy>({host_in, DType::f32, 1, 294908, 0}, {host_out, DType::f32, 1, 294908, 0}).ok());
  CHECK(check<SoftmaxPolicy>({host_in, DType::bf16, 1, 589817, 0}, {host_out, DType::bf16, 1, 589817, 0}).code() ==
        Errc::too_large);
  CHECK(check<SoftmaxPolicy>({host_in, DType::bf16, 1, 589816, 0}, {host_out, DType::bf16, 1, 589816, 0}).ok());
  CHECK(check<RmsNormPolicy>(in, {host_in + 1, DType::bf16, 16, 128, 0}).code() == Errc::aliasing);
  CHECK(check<RmsNormPolicy>(in, {host_in, DType::bf16, 16, 128, 0}).ok());  // in place

  NormOptions o;
  o.eps = 0.f;
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::bad_argument);
  CHECK(check<SoftmaxPolicy>(in, out, o).ok());  // softmax has no eps
  o = {};
  o.weight = {host_in, DType::f32, 127};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::bad_shape);
  o.weight.size = 128;
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
  CHECK(check<SoftmaxPolicy>(in, out, o).code() == Errc::bad_argument);
  o = {};
  o.bias = {host_in, DType::f32, 128};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::bad_argument);
  CHECK(check<LayerNormPolicy>(in, out, o).ok());
  o = {};
  o.residual = {host_in + 2048, DType::f32, 16, 128, 0};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::bad_shape);  // dtype differs from in
  o.residual.dtype = DType::bf16;
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
  o.residual_out = {host_out, DType::bf16, 16, 128, 0};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::aliasing);  // residual_out == out
  o = {};
  o.modulation.scale = host_in;
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::null_pointer);
}

TEST_CASE("validate: optional vectors, dtypes and the weight offset") {
  const ConstRows in{host_in, DType::bf16, 16, 128, 0};
  const Rows out{host_out, DType::bf16, 16, 128, 0};
  NormOptions o;
  o.weight = {nullptr, DType::bf16, 128};  // a size without a pointer is not "absent"
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::null_pointer);
  o.weight = {nullptr, DType::bf16, 0};
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
  o = {};
  o.bias = {nullptr, DType::bf16, 128};
  CHECK(check<LayerNormPolicy>(in, out, o).code() == Errc::null_pointer);
  o = {};
  o.weight = {host_in + 4096, static_cast<DType>(7), 128};  // cast from an integer: read as 2 bytes otherwise
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::unsupported_dtype);
  o = {};
  o.weight_offset = 1.f;  // "1 + w" with no w
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::bad_argument);
  o.weight = {host_in + 4096, DType::bf16, 128};
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
  o = {};
  o.residual = {host_in + 8192, static_cast<DType>(3), 16, 128, 0};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::unsupported_dtype);
  o = {};
  const auto* index = reinterpret_cast<const std::int32_t*>(host_in + 65536);
  o.modulation = {host_in + 16384, host_in + 16384 + 128, static_cast<DType>(9), 4, 256, index};
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::unsupported_dtype);
  o.modulation.dtype = DType::bf16;
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
}

TEST_CASE("validate: what a call writes stays apart from what every row reads") {
  // out is 16 x 128 f32 at host_out (8 KB); each read below starts inside it.
  const ConstRows in{host_in, DType::f32, 16, 128, 0};
  const Rows out{host_out, DType::f32, 16, 128, 0};
  float* const inside_out = host_out + 1000;
  NormOptions o;
  o.weight = {inside_out, DType::f32, 128};
  Status s = check<RmsNormPolicy>(in, out, o);
  CHECK(s.code() == Errc::aliasing);
  CHECK(s.message() == "rms_norm: out overlaps weight");
  o.weight = {host_out + 16 * 128, DType::f32, 128};  // just past out's last element
  CHECK(check<RmsNormPolicy>(in, out, o).ok());
  o = {};
  o.bias = {inside_out, DType::f32, 128};
  CHECK(check<LayerNormPolicy>(in, out, o).code() == Errc::aliasing);
  o = {};
  const auto* index = reinterpret_cast<const std::int32_t*>(host_in + 65536);
  o.modulation = {inside_out, host_in + 16384, DType::f32, 2, 256, index};  // scale table inside out
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::aliasing);
  o.modulation = {host_in + 16384, host_in + 16384 + 128, DType::f32, 2, 256,
                  reinterpret_cast<const std::int32_t*>(inside_out)};  // the index inside out
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::aliasing);
  o = {};
  o.stats = host_in + 100;  // stats inside a row being read
  s = check<LayerNormPolicy>(in, out, o);
  CHECK(s.code() == Errc::aliasing);
  CHECK(s.message() == "layer_norm: stats overlaps in");
  o.stats = inside_out;
  CHECK(check<LayerNormPolicy>(in, out, o).code() == Errc::aliasing);
  o.stats = host_out + 16 * 128;  // right after out: 16 rows x {mean, rstd}
  CHECK(check<LayerNormPolicy>(in, out, o).ok());
  o = {};
  o.residual = {host_in + 8192, DType::f32, 16, 128, 0};
  o.residual_out = {host_in + 32768, DType::f32, 16, 128, 0};
  o.weight = {host_in + 32768 + 5 * 128, DType::f32, 128};  // weight inside residual_out
  CHECK(check<RmsNormPolicy>(in, out, o).code() == Errc::aliasing);
}

TEST_CASE("validate: the message names the op and the argument") {
  Status s = check<LayerNormPolicy>({host_in, DType::f32, 4, 8, 7}, {host_out, DType::f32, 4, 8, 0});
  CHECK(s.to_string() == "bad_shape: layer_norm: in.stride (7) < cols (8)");
}

TEST_CASE("write helpers: 16-bit rows of two chunks on at most 128 threads, one row a CTA, no more rows than SMs") {
  constexpr int kSms = 132;
  auto helped = [](DType t, std::int64_t rows, std::int64_t cols) {
    const RowConfig cfg = select_row_config(cols, t);
    return takes_helpers(t, cfg, rows, rows_per_cta(cfg, rows, kSms), kSms);
  };
  for (DType t : {DType::bf16, DType::f16}) {
    CHECK(helped(t, 37, 1537));  // the seed's shape: 128 threads, two rows a CTA otherwise
    CHECK(helped(t, 1, 1024));
    CHECK(helped(t, kSms, 2048));
    CHECK_FALSE(helped(t, kSms + 1, 1537));  // more rows than SMs
    CHECK_FALSE(helped(t, 37, 2049));        // 160 threads a row: two groups would pass 256
    CHECK_FALSE(helped(t, 37, 4096));        // 256 threads a row
    CHECK_FALSE(helped(t, 37, 512));         // sub-warp rows
  }
  CHECK_FALSE(helped(DType::f32, 37, 1537));  // f32 rows: not compiled
  row_write_helpers() = false;
  CHECK_FALSE(helped(DType::bf16, 37, 1537));
  row_write_helpers() = true;
}

namespace {
// The plan of a call on fake_h200().
template <class Policy>
RowPlan planned(ConstRows in, Rows out, NormOptions o = {}, bool sm90 = true, Status* status = nullptr,
               HeldClusters held = nullptr) {
  RowParams p;
  REQUIRE(validate<Policy>(in, out, o, p).ok());
  RowPlan plan;
  const Status s = plan_rows<Policy>(p, in.dtype, fake_h200(), sm90, plan, held);
  if (status) *status = s;
  else REQUIRE(s.ok());
  return plan;
}
const void* const fake_weight = reinterpret_cast<const void*>(std::uintptr_t(1) << 40);
const void* const fake_bias = reinterpret_cast<const void*>(std::uintptr_t(1) << 41);
}  // namespace

TEST_CASE("plan_rows: the kernel each call reaches, and the choices that move it") {
  const fusekit::test::RestoreOnExit restore_sharing(row_param_sharing());
  const fusekit::test::RestoreOnExit restore_phased(phased_rows());
  const fusekit::test::RestoreOnExit restore_helpers(row_write_helpers());
  const fusekit::test::RestoreOnExit restore_kernel(row_kernel_choice());
  const DType bf = DType::bf16;
  NormOptions weight;
  weight.weight = {fake_weight, bf, 1024};

  // Aligned 16-bit warp rows, four a CTA (1103 rows: 276 CTAs, two a SM at least), share their weight.
  RowPlan plan = planned<RmsNormPolicy>({host_in, bf, 1103, 1024, 0}, {host_out, bf, 1103, 1024, 0}, weight);
  CHECK(plan.staging == Staging::none);
  CHECK((plan.config.shape == RowShape::warps && plan.config.threads_per_row == 64 && plan.rows_per_cta == 4));
  CHECK(plan.alignment == RowAlignment::aligned);
  CHECK(plan.cta_rows == CtaRows::sharing);
  CHECK(describe(plan) == "aligned warps, 64 threads x 2 vectors, 4 rows a CTA, sharing");
  CHECK(planned<RmsNormPolicy>({host_in, bf, 1103, 1024, 0}, {host_out, bf, 1103, 1024, 0}).cta_rows ==
        CtaRows::independent);  // nothing to share
  row_param_sharing() = ParamSharing::phased;
  CHECK(planned<RmsNormPolicy>({host_in, bf, 1103, 1024, 0}, {host_out, bf, 1103, 1024, 0}, weight).cta_rows ==
        CtaRows::independent);
  row_param_sharing() = ParamSharing::all;
  CHECK(planned<RmsNormPolicy>({host_in, bf, 1103, 1024, 0}, {host_out, bf, 1103, 1024, 0}, weight).rows_per_cta == 4);
  CHECK(planned<RmsNormPolicy>({host_in, bf, 500, 1024, 0}, {host_out, bf, 500, 1024, 0}, weight).rows_per_cta == 1);
  NormOptions f32_weight;
  f32_weight.weight = {fake_weight, DType::f32, 1024};
  plan = planned<RmsNormPolicy>({host_in, DType::f32, 8192, 1024, 0}, {host_out, DType::f32, 8192, 1024, 0}, f32_weight);
  CHECK((plan.alignment == RowAlignment::aligned && plan.cta_rows == CtaRows::independent));  // f32 rows: no sharing

  // Rows of an odd width: 16-bit rows with aligned parameters take the phased kernels, two rows of
  // one phase a CTA sharing them; the general kernels otherwise.
  weight.weight.size = 1537;
  plan = planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight);
  CHECK((plan.alignment == RowAlignment::phased && plan.cta_rows == CtaRows::one_phase && plan.rows_per_cta == 2));
  CHECK_FALSE(plan.prefetch_params);
  row_param_sharing() = ParamSharing::phased;  // phased: the phased kernels still share
  CHECK(planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight).cta_rows == CtaRows::one_phase);
  row_param_sharing() = ParamSharing::none;
  CHECK(planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight).cta_rows == CtaRows::independent);
  row_param_sharing() = ParamSharing::all;
  phased_rows() = PhasedRows::prefetch;
  plan = planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight);
  CHECK((plan.alignment == RowAlignment::phased && plan.prefetch_params));
  phased_rows() = PhasedRows::off;
  plan = planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight);
  CHECK((plan.alignment == RowAlignment::general && plan.cta_rows == CtaRows::independent));
  phased_rows() = PhasedRows::on;
  weight.weight.data = static_cast<const char*>(fake_weight) + 2;  // parameters off their alignment: general
  CHECK(planned<RmsNormPolicy>({host_in, bf, 600, 1537, 0}, {host_out, bf, 600, 1537, 0}, weight).alignment ==
        RowAlignment::general);
  weight.weight.data = fake_weight;

  // Few rows: each its own CTA with helpers (aligned and phased kernels only: softmax's odd rows
  // take the general kernels).
  NormOptions affine = weight;
  affine.bias = {fake_bias, bf, 1537};
  plan = planned<LayerNormPolicy>({host_in, bf, 37, 1537, 0}, {host_out, bf, 37, 1537, 0}, affine);
  CHECK((plan.alignment == RowAlignment::phased && plan.cta_rows == CtaRows::helped && plan.rows_per_cta == 1));
  CHECK(describe(plan) == "phased warps, 128 threads x 2 vectors, 1 row a CTA, helped");
  row_write_helpers() = false;
  CHECK(planned<LayerNormPolicy>({host_in, bf, 37, 1537, 0}, {host_out, bf, 37, 1537, 0}, affine).cta_rows ==
        CtaRows::independent);
  row_write_helpers() = true;
  plan = planned<SoftmaxPolicy>({host_in, bf, 37, 1537, 0}, {host_out, bf, 37, 1537, 0});
  CHECK((plan.alignment == RowAlignment::general && plan.cta_rows == CtaRows::independent));

  // Long rows: staged in slices, the parameters beside them in one-wave 16-bit calls; a row that
  // fits a stage is staged where that is faster (softmax from 20 KB); clusters need sm_90.
  weight.weight.size = 262144;
  plan = planned<RmsNormPolicy>({host_in, bf, 8, 262144, 0}, {host_out, bf, 8, 262144, 0}, weight);
  CHECK((plan.staging == Staging::slices && plan.staged.cluster == 16 && plan.staged.params_offset > 0));
  CHECK(describe(plan) == "staged slices, cluster of 16 x 256 threads, parameters staged");
  CHECK_FALSE(plan.narrow_slices);  // 64 KB a CTA with the weight
  CHECK_FALSE(planned<SoftmaxPolicy>({host_in, bf, 32, 262144, 0}, {host_out, bf, 32, 262144, 0}).narrow_slices);  // unknown
  // ... as far as the device runs the staged layout's clusters at once (it is asked).
  const HeldClusters seven = [](const StagedLayout& l, bool narrow, const DeviceInfo&, int& clusters) {
    // Asked of the layout with the parameters on the wide kernel; then, not staging them, of the
    // 32 KB layout on both kernels (the narrow kernel's choice).
    CHECK((l.params_offset > 0 ? !narrow : l.stage_bytes <= kNarrowSlicedMaxStageBytes));
    clusters = 7;
    return Status{};
  };
  const HeldClusters eight = [](const StagedLayout&, bool, const DeviceInfo&, int& clusters) {
    clusters = 8;
    return Status{};
  };
  const HeldClusters failing = [](const StagedLayout&, bool, const DeviceInfo&, int&) {
    return Status{Errc::bad_argument, "no answer"};
  };
  // The narrow kernel where it saves a wave (an H100 runs 28 of the wide kernel's clusters at once
  // and 35 of the narrow one's), or where asked; the same layout either way.
  const HeldClusters h100 = [](const StagedLayout& l, bool narrow, const DeviceInfo&, int& clusters) {
    clusters = l.params_offset > 0 ? 21 : narrow ? 35 : 28;
    return Status{};
  };
  {
    const fusekit::test::RestoreOnExit restore_sliced_kernel(sliced_kernel());
    const auto narrow_at = [&](std::int64_t rows) {
      const RowPlan p = planned<SoftmaxPolicy>({host_in, bf, rows, 262144, 0}, {host_out, bf, rows, 262144, 0}, {},
                                               true, nullptr, h100);
      CHECK((p.staging == Staging::slices && p.staged.threads == 256 && p.staged.cluster == 16));
      return p.narrow_slices;
    };
    CHECK_FALSE(narrow_at(28));
    CHECK(narrow_at(29));
    CHECK(narrow_at(32));
    CHECK_FALSE(narrow_at(36));
    CHECK(narrow_at(64));
    plan = planned<SoftmaxPolicy>({host_in, bf, 32, 262144, 0}, {host_out, bf, 32, 262144, 0}, {}, true, nullptr, h100);
    CHECK(describe(plan) == "staged slices, cluster of 16 x 256 threads, 5 CTAs an SM");
    sliced_kernel() = SlicedKernel::wide;
    CHECK_FALSE(narrow_at(32));
    sliced_kernel() = SlicedKernel::narrow;
    CHECK(narrow_at(8));
    CHECK_FALSE(planned<SoftmaxPolicy>({host_in, DType::f32, 32, 262144, 0}, {host_out, DType::f32, 32, 262144, 0})
                    .narrow_slices);  // f32: no narrow kernel
    CHECK_FALSE(planned<RmsNormPolicy>({host_in, bf, 8, 262144, 0}, {host_out, bf, 8, 262144, 0}, weight, true,
                                       nullptr, h100)
                    .narrow_slices);  // parameters staged: 64 KB a CTA
  }
  const ConstRows rows8{host_in, bf, 8, 262144, 0};
  const Rows out8{host_out, bf, 8, 262144, 0};
  CHECK(planned<RmsNormPolicy>(rows8, out8, weight, true, nullptr, seven).staged.params_offset == 0);
  CHECK(planned<RmsNormPolicy>(rows8, out8, weight, true, nullptr, eight).staged.params_offset > 0);
  const HeldClusters twenty_one = [](const StagedLayout&, bool, const DeviceInfo&, int& clusters) {
    clusters = 21;
    return Status{};
  };
  const ConstRows rows20{host_in, bf, 20, 262144, 0};  // 320 CTAs: more than the SMs, 20 clusters held at once
  const Rows out20{host_out, bf, 20, 262144, 0};
  CHECK(planned<RmsNormPolicy>(rows20, out20, weight, true, nullptr, twenty_one).staged.params_offset > 0);
  CHECK(planned<RmsNormPolicy>(rows20, out20, weight).staged.params_offset == 0);  // unknown: by the SMs
  Status held_status;
  planned<RmsNormPolicy>(rows8, out8, weight, true, &held_status, failing);
  CHECK(held_status.code() == Errc::bad_argument);
  Status softmax_status;
  planned<SoftmaxPolicy>(rows8, out8, {}, true, &softmax_status, failing);
  CHECK(softmax_status.code() == Errc::bad_argument);  // asked for the narrow kernel's choice
  CHECK(planned<SoftmaxPolicy>({host_in, DType::f32, 8, 262144, 0}, {host_out, DType::f32, 8, 262144, 0}, {}, true,
                               nullptr, failing)
            .staging == Staging::slices);  // f32, no parameters: not asked
  weight.weight.size = 65536;
  plan = planned<RmsNormPolicy>({host_in, bf, 128, 65536, 0}, {host_out, bf, 128, 65536, 0}, weight);
  CHECK((plan.staging == Staging::slices && plan.staged.params_offset == 0));  // 256 CTAs: several waves
  CHECK(planned<SoftmaxPolicy>({host_in, DType::f32, 37, 8192, 0}, {host_out, DType::f32, 37, 8192, 0}).staging == Staging::row);
  CHECK(planned<RmsNormPolicy>({host_in, DType::f32, 37, 8192, 0}, {host_out, DType::f32, 37, 8192, 0}).staging == Staging::none);
  CHECK(planned<RmsNormPolicy>({host_in, DType::f32, 2, 16384, 0}, {host_out, DType::f32, 2, 16384, 0}).staging == Staging::row);
  row_kernel_choice() = RowKernel::registers;
  plan = planned<RmsNormPolicy>({host_in, DType::f32, 2, 16384, 0}, {host_out, DType::f32, 2, 16384, 0});
  CHECK((plan.staging == Staging::none && plan.config.shape == RowShape::cluster && plan.config.cluster == 2));
  CHECK(describe(plan) == "registers, cluster of 2 x " + std::to_string(plan.config.threads_per_row) + " threads x 16 vectors");
  row_kernel_choice() = RowKernel::automatic;
  Status s;
  planned<RmsNormPolicy>({host_in, DType::f32, 2, 16384, 0}, {host_out, DType::f32, 2, 16384, 0}, {}, false, &s);
  CHECK(s.code() == Errc::unsupported_device);  // below sm_90: no staged kernel, and clusters refused
  planned<RmsNormPolicy>({host_in, DType::f32, 2, 8192, 0}, {host_out, DType::f32, 2, 8192, 0}, {}, false, &s);
  CHECK(s.ok());
}
