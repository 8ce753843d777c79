// fusekit/reduce/row_params.hpp: what the host hands the row kernel (plain data, passed by value).
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cstdint>

namespace fusekit::reduce {

struct RowParams {
  const void* in = nullptr;
  std::int64_t in_stride = 0;
  void* out = nullptr;
  std::int64_t out_stride = 0;

  // Fused residual: x = round_to_input_dtype(in + residual), written to residual_out when given.
  const void* residual = nullptr;
  std::int64_t residual_stride = 0;
  void* residual_out = nullptr;
  std::int64_t residual_out_stride = 0;

  // Affine: y = y * (weight + weight_offset) + bias.
  const void* weight = nullptr;
  DType weight_dtype = DType::f32;
  float weight_offset = 0.f;
  const void* bias = nullptr;
  DType bias_dtype = DType::f32;

  // adaLN modulation: t = mod_index[row]; y = y * (1 + scale[t][col]) + shift[t][col].
  const void* mod_scale = nullptr;
  const void* mod_shift = nullptr;
  DType mod_dtype = DType::f32;
  std::int64_t mod_stride = 0;
  const std::int32_t* mod_index = nullptr;
  std::int32_t mod_rows = 0;

  float* stats = nullptr;  // Policy::kStats floats per row
  std::int64_t rows = 0;
  std::int32_t cols = 0;
  float inv_cols = 0.f;  // 1 / cols rounded once on the host: a division costs ~10 instructions a thread
  float eps = 0.f;
  // Every row start and row stride (input, output, residual, residual_out), the weight, the bias and
  // the modulation table are aligned to whole vectors, the parameters are in the input dtype and cols
  // is a whole number of vectors: the register kernels then skip every per-vector test (1.04-1.38x
  // on such rows: benchmark/RESULTS.md, step 9). Set by validate().
  bool vectors_aligned = false;
  // The weight, the bias and the modulation table's rows are in the input dtype and vector-aligned,
  // whatever the rows are (vectors_aligned implies it): a misaligned row meets each parameter vector
  // straddling two aligned words, and reads both (RowAlignment::phased). Set by validate().
  bool params_aligned = false;
  // The phased kernels ask for their parameter lines in L1 with the row, so that the write pass
  // waits on L1 (phased_rows(), dispatch.cuh). Set by the dispatch.
  bool prefetch_params = false;
};

// The register kernels' variants, by how a call's vectors sit (row_kernel.cuh, dispatch.cuh).
enum class RowAlignment : std::uint8_t {
  general,  // anything: each vector tested; parameters of any dtype or alignment, element by element where off
  phased,   // rows at any alignment, params_aligned: each parameter vector read whole (16-bit rows only)
  aligned,  // vectors_aligned: every vector one aligned access, no tests
};

// How the rows of a register kernel's CTA (threadIdx.y) are chosen and work together.
enum class CtaRows : std::uint8_t {
  independent,  // blockDim.y consecutive rows, each on its own
  helped,       // one row; the second group of threads (blockDim.y == 2) helps it write (RowAgent)
  // blockDim.y rows r, r + 8, r + 16, ...: rows of 16-bit elements 8 apart start at the same offset
  // from a 16-byte boundary, so in the phased kernels they meet the parameters at the same phase;
  // each parameter vector (the two words it straddles) is read once into shared memory, by one of
  // the rows, and every row of the CTA takes it from there.
  one_phase,
  // blockDim.y consecutive rows of an aligned kernel (every row starts on a vector, so all are at
  // one phase) that read the parameter vectors once into shared memory, as one_phase does.
  sharing,
};

// CtaRows::one_phase: rows this many apart share a phase. CTA b of each group of kPhaseRows CTAs
// holds rows kPhaseRows * per * (b / kPhaseRows) + b % kPhaseRows + kPhaseRows * y, y < per
// (row_kernel); a call of `rows` rows takes one_phase_ctas of them (up to kPhaseRows - 1 idle).
inline constexpr int kPhaseRows = 8;
constexpr std::int64_t one_phase_ctas(std::int64_t rows, std::int64_t per) {
  return (rows + kPhaseRows * per - 1) / (kPhaseRows * per) * kPhaseRows;
}

}  // namespace fusekit::reduce
