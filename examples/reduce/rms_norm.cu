// RMSNorm with a weight over bf16 rows, then the MiniMax-H3 form: residual add + RMSNorm + adaLN
// modulation in one pass. Build, from the repository root:
//   nvcc -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I include examples/reduce/rms_norm.cu
#include <fusekit/reduce.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define CUDA_OK(expr)                                                                 \
  do {                                                                                \
    cudaError_t e = (expr);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s: %s\n", #expr, cudaGetErrorString(e));                 \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  using namespace fusekit;
  using Bf16Only = DTypes<bf16_t>;  // compile only the bf16 kernels
  const std::int64_t tokens = 925, hidden = 5376, table_rows = 3;

  std::vector<bf16_t> h_x(tokens * hidden), h_w(hidden), h_table(table_rows * 6 * hidden);
  for (std::size_t i = 0; i < h_x.size(); ++i) h_x[i] = from_float<bf16_t>(float(int(i % 97) - 48) / 16.f);
  for (auto& w : h_w) w = from_float<bf16_t>(1.f);
  for (std::size_t i = 0; i < h_table.size(); ++i) h_table[i] = from_float<bf16_t>(float(int(i % 13) - 6) / 64.f);
  std::vector<std::int32_t> h_index(tokens);
  for (std::int64_t r = 0; r < tokens; ++r) h_index[r] = std::int32_t(r % table_rows);  // modality of each token

  bf16_t *x, *residual, *y, *w, *table;
  std::int32_t* index;
  CUDA_OK(cudaMalloc(&x, h_x.size() * 2));
  CUDA_OK(cudaMalloc(&residual, h_x.size() * 2));
  CUDA_OK(cudaMalloc(&y, h_x.size() * 2));
  CUDA_OK(cudaMalloc(&w, h_w.size() * 2));
  CUDA_OK(cudaMalloc(&table, h_table.size() * 2));
  CUDA_OK(cudaMalloc(&index, h_index.size() * 4));
  CUDA_OK(cudaMemcpy(x, h_x.data(), h_x.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(residual, h_x.data(), h_x.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(w, h_w.data(), h_w.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(table, h_table.data(), h_table.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(index, h_index.data(), h_index.size() * 4, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  // 1. y = rms_norm(x) * w
  NormOptions plain;
  plain.weight = {w, DType::bf16, hidden};
  plain.eps = 1e-5f;
  Status s = rms_norm<Bf16Only>({x, DType::bf16, tokens, hidden}, {y, DType::bf16, tokens, hidden}, plain, stream);
  if (!s.ok()) return std::fprintf(stderr, "rms_norm: %s\n", s.to_string().c_str()), 1;

  // 2. MiniMax-H3 step 7: residual += x (in place), h = rms_norm(residual) * w, then adaLN with
  //    shift_mlp / scale_mlp (chunks 3 and 4 of each 6-chunk table row) picked per token.
  NormOptions h3 = plain;
  h3.residual = {residual, DType::bf16, tokens, hidden};
  h3.residual_out = {residual, DType::bf16, tokens, hidden};
  h3.modulation = {table + 4 * hidden, table + 3 * hidden, DType::bf16, table_rows, 6 * hidden, index};
  s = rms_norm<Bf16Only>({x, DType::bf16, tokens, hidden}, {y, DType::bf16, tokens, hidden}, h3, stream);
  if (!s.ok()) return std::fprintf(stderr, "rms_norm (H3): %s\n", s.to_string().c_str()), 1;

  // 3. A mistake is reported before any GPU work, and nothing is written.
  s = rms_norm<Bf16Only>({x, DType::bf16, tokens, hidden}, {y, DType::bf16, tokens, hidden - 1}, plain, stream);
  std::printf("expected error: %s\n", s.to_string().c_str());

  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<bf16_t> h_y(h_x.size());
  CUDA_OK(cudaMemcpy(h_y.data(), y, h_y.size() * 2, cudaMemcpyDeviceToHost));
  std::printf("y[0][0..3] = %.4f %.4f %.4f %.4f\n", to_float(h_y[0]), to_float(h_y[1]), to_float(h_y[2]),
              to_float(h_y[3]));
  for (void* p : {(void*)x, (void*)residual, (void*)y, (void*)w, (void*)table, (void*)index}) cudaFree(p);
  cudaStreamDestroy(stream);
  return 0;
}
