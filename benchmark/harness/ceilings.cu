#include "ceilings.hpp"

#include "device_timing.hpp"

#include <cublasLt.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace fusekit::bench::detail {
namespace {

void check_cublas(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(st)));
}
#define FUSEKIT_BENCH_CUBLAS(expr) check_cublas((expr), #expr)

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, DeviceFree>;
DeviceMemory device_alloc(std::size_t bytes) {
  void* p = nullptr;
  FUSEKIT_BENCH_CUDA(cudaMalloc(&p, bytes));
  return DeviceMemory(p);
}

template <class Enqueue>
double median_seconds(cudaStream_t stream, int warmup, int runs, Enqueue enqueue) {
  for (int i = 0; i < warmup; ++i) enqueue();
  std::vector<double> t;
  EventPair events;
  for (int i = 0; i < runs; ++i) {
    events.start(stream);
    enqueue();
    events.stop(stream);
    t.push_back(events.seconds());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

double copy_gbps(cudaStream_t stream) {
  constexpr std::size_t kBytes = std::size_t(1) << 30;
  DeviceMemory src = device_alloc(kBytes), dst = device_alloc(kBytes);
  FUSEKIT_BENCH_CUDA(cudaMemsetAsync(src.get(), 0x3c, kBytes, stream));
  const double s = median_seconds(stream, 3, 10, [&] {
    FUSEKIT_BENCH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kBytes, cudaMemcpyDeviceToDevice, stream));
  });
  return 2.0 * kBytes / s / 1e9;
}

double gemm_tflops(cudaStream_t stream) {
  constexpr int kN = 8192;
  constexpr std::size_t kElems = std::size_t(kN) * kN, kWorkspace = std::size_t(64) << 20;
  DeviceMemory a = device_alloc(kElems * 2), b = device_alloc(kElems * 2), c = device_alloc(kElems * 2),
               workspace = device_alloc(kWorkspace);
  fill_random_bf16(a.get(), kElems, 1u, stream);  // never time a GEMM on zeros
  fill_random_bf16(b.get(), kElems, 2u, stream);

  cublasLtHandle_t handle;
  FUSEKIT_BENCH_CUBLAS(cublasLtCreate(&handle));
  std::unique_ptr<cublasLtContext, decltype(&cublasLtDestroy)> handle_guard(handle, cublasLtDestroy);
  cublasLtMatmulDesc_t op;
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  std::unique_ptr<cublasLtMatmulDescOpaque_t, decltype(&cublasLtMatmulDescDestroy)> op_guard(op, cublasLtMatmulDescDestroy);
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;  // "TN": both operands K-major
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
  cublasLtMatrixLayout_t layout;
  FUSEKIT_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&layout, CUDA_R_16BF, kN, kN, kN));
  std::unique_ptr<cublasLtMatrixLayoutOpaque_t, decltype(&cublasLtMatrixLayoutDestroy)> layout_guard(
      layout, cublasLtMatrixLayoutDestroy);
  cublasLtMatmulPreference_t pref;
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, decltype(&cublasLtMatmulPreferenceDestroy)> pref_guard(
      pref, cublasLtMatmulPreferenceDestroy);
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                            &kWorkspace, sizeof kWorkspace));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  FUSEKIT_BENCH_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle, op, layout, layout, layout, layout, pref, 1,
                                                      &heuristic, &found));
  if (found == 0) throw std::runtime_error("cuBLASLt found no algorithm for bf16 8192^3");

  const float alpha = 1, beta = 0;
  const double s = median_seconds(stream, 3, 10, [&] {
    FUSEKIT_BENCH_CUBLAS(cublasLtMatmul(handle, op, &alpha, a.get(), layout, b.get(), layout, &beta, c.get(), layout,
                                        c.get(), layout, &heuristic.algo, workspace.get(), kWorkspace, stream));
  });
  return 2.0 * kN * double(kN) * kN / s / 1e12;
}

}  // namespace

Ceilings measure_ceilings(cudaStream_t stream) {
  Ceilings c;
  c.copy_gbps = copy_gbps(stream);
  c.gemm_tflops = gemm_tflops(stream);
  c.measured = true;
  return c;
}

}  // namespace fusekit::bench::detail
