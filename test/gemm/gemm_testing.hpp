// Device-side helpers shared by the GEMM test translation units: upload exact host values,
// poisoned outputs, checked downloads, and the float64 / cuBLASLt accuracy comparison.
#pragma once

#include "cublaslt_gemm.hpp"
#include "reference.hpp"
#include "support/gpu.hpp"

#include "fusekit/core/views.hpp"
#include "fusekit/gemm/kernel.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fusekit::test {

// A device tensor with its exact host values.
struct DevMatrix {
  Matrix host;
  DeviceBuffer buf;
  ConstRows view() const { return {buf.get(), host.dtype, host.rows, host.cols, 0}; }
  Rows out() const { return {buf.get(), host.dtype, host.rows, host.cols, 0}; }
};

inline DevMatrix upload(Matrix m) {
  DevMatrix d{std::move(m), DeviceBuffer(0)};
  d.buf = DeviceBuffer(d.host.bytes());
  if (d.host.bytes() > 0) d.buf.upload(to_bytes(d.host).data());
  return d;
}

inline DevMatrix random_device(DType t, std::int64_t rows, std::int64_t cols, double stddev, double mean = 0.0) {
  return upload(random_matrix(t, rows, cols, fresh_seed(), stddev, mean));
}

// An output buffer, poisoned (all bytes 0xFF = NaN) so an unwritten element is caught.
inline DevMatrix poisoned_output(DType t, std::int64_t rows, std::int64_t cols) {
  DevMatrix d{Matrix{t, rows, cols, {}}, DeviceBuffer(rows * cols * dtype_size(t))};
  if (rows * cols > 0) d.buf.poison();
  return d;
}

inline std::vector<unsigned char> download_bytes(const DevMatrix& d) {
  std::vector<unsigned char> bytes(d.host.rows * d.host.cols * dtype_size(d.host.dtype));
  if (!bytes.empty()) d.buf.download(bytes.data());
  return bytes;
}

// Downloads an output and checks that the kernel wrote every element (no poison left).
inline Matrix fetch_written(const DevMatrix& d) {
  const auto bytes = download_bytes(d);
  const std::size_t es = dtype_size(d.host.dtype);
  std::int64_t unwritten = 0;
  for (std::size_t i = 0; i < bytes.size(); i += es) {
    bool all_ff = true;
    for (std::size_t b = 0; b < es; ++b) all_ff &= bytes[i + b] == 0xFF;
    unwritten += all_ff;
  }
  CHECK_MESSAGE(unwritten == 0, unwritten << " of " << d.host.rows * d.host.cols << " output elements not written");
  return from_bytes(d.host.dtype, d.host.rows, d.host.cols, bytes);
}

inline bool bitwise_equal(const DevMatrix& x, const DevMatrix& y) { return download_bytes(x) == download_bytes(y); }

// A strided view into a poisoned output buffer, read back: `rows` x `cols` elements `ld` apart,
// starting `offset` elements into `buffer`. Its elements, how many of them still hold poison, how
// many elements outside it do not, and the buffer's bytes (to compare calls bit for bit).
struct ViewReadBack {
  Matrix got;
  std::int64_t unwritten = 0, outside_written = 0;
  std::vector<unsigned char> bytes;
};
inline ViewReadBack read_view(const DevMatrix& buffer, std::int64_t offset, std::int64_t rows, std::int64_t cols,
                              std::int64_t ld) {
  const DType t = buffer.host.dtype;
  const std::size_t es = dtype_size(t);
  ViewReadBack view{Matrix{t, rows, cols, std::vector<float>(rows * cols)}, 0, 0, download_bytes(buffer)};
  const Matrix full = from_bytes(t, buffer.host.rows, buffer.host.cols, view.bytes);
  for (std::int64_t i = 0; i < buffer.host.rows * buffer.host.cols; ++i) {
    bool poison = true;
    for (std::size_t b = 0; b < es; ++b) poison &= view.bytes[i * es + b] == 0xFF;
    const std::int64_t r = (i - offset) / ld, c = (i - offset) % ld;
    if (i >= offset && r < rows && c < cols) {
      view.got.v[r * cols + c] = full.v[i];
      view.unwritten += poison;
    } else {
      view.outside_written += !poison;
    }
  }
  return view;
}

// Per-element tolerance: two ulps of the output dtype relative, plus a floor that scales with
// the output's rms (sums that cancel); fp32 outputs carry fp32 accumulation error only.
inline void check_close(const Matrix& got, const Ref& ref, const char* what) {
  double ss = 0;
  for (double x : ref.v) ss += x * x;
  const double rms = ref.v.empty() ? 0 : std::sqrt(ss / ref.v.size());
  const double rel = got.dtype == DType::bf16 ? 1.0 / 128 : got.dtype == DType::f16 ? 1.0 / 1024 : 1e-5;
  const double abs = rel * rms + 1e-30;
  std::int64_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < ref.rows.size(); ++i)
    for (std::int64_t c = 0; c < ref.cols; ++c) {
      const double g = got.at(ref.rows[i], c), r = ref.at(i, c);
      if (!(std::fabs(g - r) <= rel * std::fabs(r) + abs)) {
        if (bad++ == 0)
          first = "row " + std::to_string(ref.rows[i]) + " col " + std::to_string(c) + ": got " + std::to_string(g) +
                  ", float64 " + std::to_string(r);
      }
    }
  CHECK_MESSAGE(bad == 0, std::string(what) << ": " << bad << " elements off (first: " << first << ")");
}

// cuBLASLt's bare GEMM of the same device inputs, rounded to A's dtype, as host values.
inline Matrix cublaslt_gemm(const DevMatrix& a, const DevMatrix& w) {
  DevMatrix y = poisoned_output(a.host.dtype, a.host.rows, w.host.rows);
  baseline::CublasLtGemm gemm(a.host.dtype, a.host.rows, w.host.rows, w.host.cols);
  gemm.run(a.buf.get(), w.buf.get(), y.buf.get());
  CHECK_LAUNCH();
  return fetch_written(y);
}

// The accuracy bar: fusekit's error vs float64 is no worse than 1.1x that of cuBLASLt
// plus the same epilogue done unfused. Needs enough elements for the ratio to be stable.
inline void check_not_worse_than_cublaslt(const Ref& fusekit_got, const Ref& cublas_got, const Ref& ref,
                                          const char* what) {
  const double ours = rel_err(fusekit_got, ref), theirs = rel_err(cublas_got, ref);
  MESSAGE(std::string(what) << ": rel_err_vs_fp64 fusekit " << ours << ", cuBLASLt+unfused " << theirs);
  if (ref.v.size() >= 4096) CHECK_MESSAGE(ours <= 1.1 * theirs, std::string(what) << ": fusekit " << ours << " vs cuBLASLt " << theirs);
}

// Puts the process-wide swapped-tiles choice (kernel.hpp) back as it was when the scope ends.
struct RestoreSwappedTiles {
  gemm::SwappedTiles saved = gemm::swapped_tiles().load();
  ~RestoreSwappedTiles() { gemm::swapped_tiles() = saved; }
};

// Runs `check` on the tiles the launcher picks, then again with every call of whole tiles forced
// onto each height of swapped tiles (72 on one or two N-tiles, 160 and 232 tokens; tokens as the wgmma's N, kernel_sm90_swapped.hpp), which must
// pass the same checks on the same shapes (on other GPUs and on the portable path all runs are
// the same).
template <class F> void on_every_tile(F&& check) {
  const RestoreSwappedTiles restore;
  for (gemm::SwappedTiles choice :
       {gemm::SwappedTiles::automatic, gemm::SwappedTiles::rows160, gemm::SwappedTiles::rows232,
        gemm::SwappedTiles::rows72, gemm::SwappedTiles::wide72}) {
    CAPTURE(int(choice));
    gemm::swapped_tiles() = choice;
    check();
  }
}

// The tiles whole-tile calls may take, for tests that compare them bit for bit.
inline constexpr gemm::SwappedTiles kEveryTile[] = {gemm::SwappedTiles::never, gemm::SwappedTiles::rows160,
                                                    gemm::SwappedTiles::rows232, gemm::SwappedTiles::rows72,
                                                    gemm::SwappedTiles::wide72};

}  // namespace fusekit::test
