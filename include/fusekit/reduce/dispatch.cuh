// fusekit/reduce/dispatch.cuh: picks the row layout for (N, dtype) and launches the kernel.
// Arguments are validated before this layer is reached (reduce/validate.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/reduce/row_kernel.cuh"

#include <mutex>

namespace fusekit::reduce {

// Rows per CTA for the short-row shapes: about 256 threads per CTA, fewer when the matrix has too
// few rows to give every SM two CTAs. Only the grouping of rows changes, never a row's arithmetic.
inline int rows_per_cta(const RowConfig& cfg, std::int64_t rows, int sm_count) {
  int per = cfg.threads_per_row >= 256 ? 1 : 256 / cfg.threads_per_row;
  const int min_per = cfg.threads_per_row < 32 ? 32 / cfg.threads_per_row : 1;  // whole warps
  while (per > min_per && (rows + per - 1) / per < 2 * std::int64_t(sm_count)) per /= 2;
  return per;
}

template <class Policy, class TIn, class TOut>
Status launch_rows(const RowParams& p, cudaStream_t stream) {
  if (p.rows == 0 || p.cols == 0) return {};
  DeviceInfo device;
  FUSEKIT_TRY(current_device(device));
  const RowConfig cfg = select_row_config(p.cols, dtype_v<TIn>);
  LaunchShape shape;
  shape.dependent = device.major >= 9;

  if (cfg.shape == RowShape::cluster) {
    if (!device.clusters())
      return {Errc::unsupported_device, std::string(Policy::kName) + ": rows of " + std::to_string(p.cols) +
                                            " elements need thread-block clusters (sm_90 or newer)"};
    auto kernel = row_cluster_kernel<Policy, TIn, TOut>;
    // Clusters of 16 are "non-portable" and need an opt-in once per kernel.
    static std::once_flag opt_in;
    static cudaError_t opt_in_error = cudaSuccess;
    std::call_once(opt_in, [&] {
      opt_in_error = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    });
    if (opt_in_error != cudaSuccess) return Status::cuda(opt_in_error, "cudaFuncSetAttribute(NonPortableClusterSize)");
    shape.grid = dim3(unsigned(p.rows * cfg.cluster));
    shape.block = dim3(unsigned(cfg.threads_per_row));
    shape.cluster = unsigned(cfg.cluster);
    shape.dependent = false;  // measured: PDL slowed multi-wave cluster launches (benchmark/RESULTS.md)
    return launch_kernel(kernel, shape, stream, p, (cfg.vectors + cfg.cluster - 1) / cfg.cluster);
  }

  const int per_cta = rows_per_cta(cfg, p.rows, device.sm_count);
  shape.block = dim3(unsigned(cfg.threads_per_row), unsigned(per_cta));
  shape.grid = dim3(unsigned((p.rows + per_cta - 1) / per_cta));
  switch (cfg.shape) {
    case RowShape::sub_warp:
      return launch_kernel(row_kernel<Policy, TIn, TOut, RowShape::sub_warp>, shape, stream, p, cfg.vectors);
    case RowShape::warps:
      return launch_kernel(row_kernel<Policy, TIn, TOut, RowShape::warps>, shape, stream, p, cfg.vectors);
    case RowShape::block:
      return launch_kernel(row_kernel<Policy, TIn, TOut, RowShape::block>, shape, stream, p, cfg.vectors);
    default:
      return launch_kernel(row_kernel<Policy, TIn, TOut, RowShape::wide>, shape, stream, p, cfg.vectors);
  }
}

}  // namespace fusekit::reduce
