// LayerNorm with weight and bias, fp32 in, bf16 out, per-row mean/rstd exported, on a stream.
#include <fusekit/reduce.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  using namespace fusekit;
  const std::int64_t rows = 1024, cols = 4096;
  std::vector<float> h_x(rows * cols), h_w(cols, 1.5f), h_b(cols, 0.25f);
  for (std::size_t i = 0; i < h_x.size(); ++i) h_x[i] = float((i * 2654435761u) % 1000) / 100.f;

  float *x, *w, *b, *stats;
  bf16_t* y;
  if (cudaMalloc(&x, h_x.size() * 4) || cudaMalloc(&y, h_x.size() * 2) || cudaMalloc(&w, cols * 4) ||
      cudaMalloc(&b, cols * 4) || cudaMalloc(&stats, rows * 2 * 4))
    return std::fprintf(stderr, "cudaMalloc failed\n"), 1;
  cudaMemcpy(x, h_x.data(), h_x.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(w, h_w.data(), cols * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h_b.data(), cols * 4, cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  NormOptions o;
  o.weight = {w, DType::f32, cols};
  o.bias = {b, DType::f32, cols};
  o.eps = 1e-6f;
  o.stats = stats;  // {mean, rstd} per row
  const Status s = layer_norm<DTypes<float>, DTypes<bf16_t>>({x, DType::f32, rows, cols}, {y, DType::bf16, rows, cols},
                                                              o, stream);
  if (!s.ok()) return std::fprintf(stderr, "layer_norm: %s\n", s.to_string().c_str()), 1;
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return std::fprintf(stderr, "layer_norm kernel: %s\n", cudaGetErrorString(e)), 1;

  float h_stats[2];
  cudaMemcpy(h_stats, stats, sizeof h_stats, cudaMemcpyDeviceToHost);
  std::printf("row 0: mean %.5f rstd %.5f\n", h_stats[0], h_stats[1]);
  cudaFree(x), cudaFree(y), cudaFree(w), cudaFree(b), cudaFree(stats);
  cudaStreamDestroy(stream);
  return 0;
}
