// fusekit/gemm/tensor_map.hpp: host-side descriptions of global matrices for the bulk tensor
// copy engine. cuTensorMapEncodeTiled is a driver function; it is looked up once through the
// runtime's entry-point query, so nothing links against libcuda.
#pragma once

#include "fusekit/core/status.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cstdint>
#include <mutex>
#include <string>

namespace fusekit::gemm {

namespace detail {
inline Status tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000& out) {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static cudaError_t error = cudaSuccess;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    error = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (error == cudaSuccess && found == cudaDriverEntryPointSuccess) fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  if (error != cudaSuccess) return Status::cuda(error, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
  if (fn == nullptr) return {Errc::unsupported_device, "the driver does not provide cuTensorMapEncodeTiled"};
  out = fn;
  return {};
}
}  // namespace detail

// A row-major [rows, cols] matrix of 16-bit elements, `ld` elements between rows, read in boxes
// of box_rows x 64 elements (128 bytes: the 128-byte swizzle's row) that land in shared memory
// swizzled the way wgmma's descriptors expect. Callers have checked 16-byte alignment of the
// base and of ld * 2 (the copy engine's rule). `promotion`: how much L2 fetches per miss.
inline Status make_tensor_map_sw128(CUtensorMap& map, const void* base, CUtensorMapDataType type, std::int64_t rows,
                                    std::int64_t cols, std::int64_t ld, int box_rows,
                                    CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  FUSEKIT_TRY(detail::tensor_map_encoder(encode));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};  // bytes, outer dimension only
  const cuuint32_t box[2] = {64, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t unit[2] = {1, 1};
  const CUresult r = encode(&map, type, 2, const_cast<void*>(base), dims, strides, box, unit,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return {Errc::bad_argument, "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ") for a " +
                                    std::to_string(rows) + " x " + std::to_string(cols) + " matrix"};
  return {};
}

}  // namespace fusekit::gemm
