// Softmax over the rows of a strided fp32 view (a slice of wider rows), in place, with max/sum out.
#include <fusekit/reduce.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using namespace fusekit;
  const std::int64_t rows = 37, cols = 1537, stride = 1600;  // each row padded to 1600 elements
  std::vector<float> h(rows * stride);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(float(i)) * 4.f;
  for (std::int64_t c = 0; c < cols; ++c) h[c] = -INFINITY;  // row 0 fully masked: gives NaN, as torch

  float *x, *stats;
  if (cudaMalloc(&x, h.size() * 4) || cudaMalloc(&stats, rows * 2 * 4)) return std::fprintf(stderr, "cudaMalloc failed\n"), 1;
  cudaMemcpy(x, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  const Rows view{x, DType::f32, rows, cols, stride};
  const Status s = softmax<DTypes<float>>(as_const(view), view, SoftmaxOptions{stats}, stream);  // in place
  if (!s.ok()) return std::fprintf(stderr, "softmax: %s\n", s.to_string().c_str()), 1;
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return std::fprintf(stderr, "softmax kernel: %s\n", cudaGetErrorString(e)), 1;

  cudaMemcpy(h.data(), x, h.size() * 4, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (std::int64_t c = 0; c < cols; ++c) sum += h[stride + c];
  std::printf("row 0[0] = %f (masked row), row 1 sums to %.7f\n", h[0], sum);
  cudaFree(x), cudaFree(stats);
  cudaStreamDestroy(stream);
  return 0;
}
