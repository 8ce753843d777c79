// The baseline every accuracy test and benchmark compares with: cuBLASLt's bare GEMM,
// Y [M, N] = A [M, K] * W [N, K]^T, same dtypes, fp32 compute, best heuristic algorithm.
// Shared by test/gemm and benchmark/gemm; throws std::runtime_error on any failure.
#pragma once

#include "fusekit/core/dtype.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fusekit::baseline {

inline void lt_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cublasLt status " + std::to_string(int(s)));
}
inline void rt_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

class CublasLtGemm {
 public:
  // Row-major Y = A W^T is column-major Y^T [N, M] = W^T(as stored [K, N], op T) * A^T(stored [K, M]).
  CublasLtGemm(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
    const cudaDataType_t t = dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
    lt_check(cublasLtCreate(&handle_), "cublasLtCreate");
    lt_check(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    lt_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof(op_t)), "TRANSA");
    lt_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof(op_n)), "TRANSB");
    lt_check(cublasLtMatrixLayoutCreate(&w_layout_, t, k, n, k), "layout W");
    lt_check(cublasLtMatrixLayoutCreate(&a_layout_, t, k, m, k), "layout A");
    lt_check(cublasLtMatrixLayoutCreate(&y_layout_, t, n, m, n), "layout Y");
    rt_check(cudaMalloc(&workspace_, kWorkspace), "cudaMalloc workspace");
    cublasLtMatmulPreference_t pref = nullptr;
    lt_check(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
    const std::size_t ws = kWorkspace;
    lt_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
             "pref workspace");
    int found = 0;
    cublasLtMatmulHeuristicResult_t result{};
    lt_check(cublasLtMatmulAlgoGetHeuristic(handle_, desc_, w_layout_, a_layout_, y_layout_, y_layout_, pref, 1, &result,
                                            &found),
             "AlgoGetHeuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) throw std::runtime_error("cublasLt: no algorithm for this GEMM");
    algo_ = result.algo;
  }
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  ~CublasLtGemm() {
    cudaFree(workspace_);
    cublasLtMatrixLayoutDestroy(y_layout_);
    cublasLtMatrixLayoutDestroy(a_layout_);
    cublasLtMatrixLayoutDestroy(w_layout_);
    cublasLtMatmulDescDestroy(desc_);
    cublasLtDestroy(handle_);
  }

  void run(const void* a, const void* w, void* y, cudaStream_t stream = nullptr) const {
    const float alpha = 1.f, beta = 0.f;
    lt_check(cublasLtMatmul(handle_, desc_, &alpha, w, w_layout_, a, a_layout_, &beta, y, y_layout_, y, y_layout_,
                            &algo_, workspace_, kWorkspace, stream),
             "cublasLtMatmul");
  }

 private:
  static constexpr std::size_t kWorkspace = 32u << 20;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t w_layout_ = nullptr, a_layout_ = nullptr, y_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
};

}  // namespace fusekit::baseline
