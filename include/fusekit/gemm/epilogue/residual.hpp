// fusekit/gemm/epilogue/residual.hpp: residual add, y = residual + y, or gated residual,
// y = residual + gate[idx[row]] * y with a per-row index into a small table (adaLN's gate_msa /
// gate_mlp rows). residual may be the output buffer itself: each element is read before the
// store node writes it, and no other CTA touches it.
#pragma once

#include "fusekit/core/dtype.hpp"
#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/ptx_sm90.hpp"

#include <cstdint>

namespace fusekit::gemm {

template <class R, class G> struct AddResidual {
  static constexpr bool kColumnLocal = true;  // epilogue.hpp
  struct Params {
    const R* residual = nullptr;
    std::int64_t ld_residual = 0;
    const G* gate = nullptr;  // null: plain residual add
    std::int64_t ld_gate = 0;
    const std::int32_t* idx = nullptr;  // gate row of each output row
    std::int64_t gate_rows = 0;
  };
  // The residual's rows of the tile (epilogue.hpp): one bulk L2 prefetch a row and W half, of
  // the run's 16-byte aligned interior (a hint may skip a few bytes, never touch any outside),
  // evict-last so the weights streaming through leave it; `release` returns each 128-byte line
  // of those runs to normal eviction. The gate table is a few rows every CTA reads: L2 has it.
  __device__ static void prefetch(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                  int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const std::uint64_t policy = ptx::l2_evict_last();
    for_each_run(p, row0, rows, wr, thread, threads, [&](std::uintptr_t begin, std::uintptr_t end) {
      begin = (begin + 15) & ~std::uintptr_t{15}, end &= ~std::uintptr_t{15};
      if (end > begin) ptx::prefetch_l2_bulk(reinterpret_cast<const void*>(begin), static_cast<std::uint32_t>(end - begin), policy);
    });
#endif
  }
  __device__ static void release(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                 int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    for_each_run(p, row0, rows, wr, thread, threads, [&](std::uintptr_t begin, std::uintptr_t end) {
      // Every line holding a prefetched byte: each holds one of the run's bytes, so lies in mapped memory.
      for (std::uintptr_t line = begin & ~std::uintptr_t{127}; line < end; line += 128)
        ptx::l2_priority_normal(reinterpret_cast<const void*>(line));
    });
#endif
  }

  __device__ static void apply(const Params& p, AccTile& t) {
    // 16-byte loads of 8 residual and gate values at a time when every row allows it (the usual
    // case); element by element otherwise. The choice is the same for every thread.
    const bool vector = rows_aligned16(p.residual, p.ld_residual) && (p.gate == nullptr || rows_aligned16(p.gate, p.ld_gate));
    if (vector) {
      // kUnroll runs of 8 per thread at a time, every global load issued before the first use:
      // the loop is bound by load latency, so loads must overlap (the row's idx, then 16-byte
      // residual and gate loads; raw 16-bit values keep the registers few).
      constexpr int kUnroll = sizeof(R) == 4 ? 2 : 4;  // within a consumer's registers beside the accumulators (the 88 of swapped tiles' epilogue warps spill a little)
      const int chunks = t.cols / 8, n = t.rows * chunks;
      // Item i = thread + k * threads is (row, 8-column run) (i / chunks, i % chunks); where the
      // group covers whole rows (128 threads, 16 runs) a thread keeps its run and steps k rows
      // of threads / chunks, with no division per item (as `for_each_row_item` in tile.hpp; this
      // loop keeps its own shape to issue kUnroll items' loads before the first use).
      const bool fixed = chunks > 0 && t.threads % chunks == 0;
      const int r_first = fixed ? t.thread / chunks : 0, r_step = fixed ? t.threads / chunks : 0;
      const int c_fixed = fixed ? (t.thread % chunks) * 8 : 0;
      auto item = [&](int i, int k, int& r, int& c) {
        if (fixed) {
          r = r_first + k * r_step, c = c_fixed;
        } else {
          r = i / chunks, c = (i % chunks) * 8;
        }
      };
      for (int i0 = t.thread, k0 = 0; i0 < n; i0 += kUnroll * t.threads, k0 += kUnroll) {
        Raw8<R> res[kUnroll];
        Raw8<G> gate[kUnroll];
        std::int32_t gi[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int i = i0 + u * t.threads;
          if (i >= n) break;
          int r, c;
          item(i, k0 + u, r, c);
          res[u].load(p.residual + (t.row0 + r) * p.ld_residual + t.col0 + c);
          gi[u] = p.gate != nullptr ? p.idx[t.row0 + r] : 0;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int i = i0 + u * t.threads;
          if (i >= n) break;
          int r, c;
          item(i, k0 + u, r, c);
          if (p.gate != nullptr && gi[u] >= 0 && gi[u] < p.gate_rows) gate[u].load(p.gate + gi[u] * p.ld_gate + t.col0 + c);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int i = i0 + u * t.threads;
          if (i >= n) break;
          int r, c;
          item(i, k0 + u, r, c);
          float v[8], rv[8], g[8];
          t.load8(r, c, v);
          res[u].to_floats(rv);
          if (p.gate == nullptr)
            for (float& x : g) x = 1.f;
          else if (gi[u] >= 0 && gi[u] < p.gate_rows)
            gate[u].to_floats(g);
          else
            for (float& x : g) x = bad_index();
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = rv[j] + g[j] * v[j];
          t.store8(r, c, v);
        }
      }
      return;
    }
    for_each_element(t, [&](float& v, int r, int c) {
      const std::int64_t row = t.row0 + r, col = t.col0 + c;
      float g = 1.f;
      if (p.gate != nullptr) {
        const std::int32_t i = p.idx[row];
        g = (i >= 0 && i < p.gate_rows) ? to_float(p.gate[i * p.ld_gate + col]) : bad_index();
      }
      v = to_float(p.residual[row * p.ld_residual + col]) + g * v;
    });
  }

 private:
  // f(begin, end) for the byte range of each residual run (a row's W half) of the tile, by `threads` threads.
  template <class F>
  __device__ static void for_each_run(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                      int threads, F&& f) {
    for (int i = thread; i < 2 * rows; i += threads) {
      const int half = i % 2;
      if (wr.count[half] <= 0) continue;
      const R* run = p.residual + (row0 + i / 2) * p.ld_residual + wr.first[half];
      f(reinterpret_cast<std::uintptr_t>(run), reinterpret_cast<std::uintptr_t>(run + wr.count[half]));
    }
  }
  // An index outside the table cannot be checked on the host without a copy; make it loud.
  __device__ static float bad_index() { return __int_as_float(0x7fc00000); }
};

}  // namespace fusekit::gemm
