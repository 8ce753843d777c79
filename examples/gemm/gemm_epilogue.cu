// The MiniMax-H3 fc1 (SwiGLU) preset, then a user-defined epilogue node composed with library
// nodes, with no kernel code touched. Build:
//   nvcc -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I include examples/gemm/gemm_epilogue.cu
#include <fusekit/gemm.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

// Prints a failed CUDA call; CUDA_OK returns 1 from main on failure.
static bool failed(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e != cudaSuccess;
}
#define CUDA_OK(expr) \
  if (failed((expr), #expr)) return 1

// A new node: y = y * scale[col] (say, a per-channel dequantisation scale). One struct, one file.
struct ColumnScale {
  struct Params {
    const float* scale = nullptr;
  };
  __device__ static void apply(const Params& p, fusekit::gemm::AccTile& t) {
    fusekit::gemm::for_each_element(t, [&](float& v, int, int c) { v *= p.scale[t.col0 + c]; });
  }
};

int main() {
  using namespace fusekit;
  const gemm::H3Dims d = gemm::H3Dims::tiny();  // hidden 64, ffn 128: the fixtures' configuration
  const std::int64_t tokens = 37;

  std::vector<bf16_t> h_x(tokens * d.hidden), h_w(2 * d.ffn * d.hidden);
  for (std::size_t i = 0; i < h_x.size(); ++i) h_x[i] = from_float<bf16_t>(float(int(i % 29) - 14) / 8.f);
  for (std::size_t i = 0; i < h_w.size(); ++i) h_w[i] = from_float<bf16_t>(float(int(i % 31) - 15) / 128.f);
  std::vector<float> h_scale(d.ffn, 0.5f);

  bf16_t *x, *w, *a, *y;
  float* scale;
  CUDA_OK(cudaMalloc(&x, h_x.size() * 2));
  CUDA_OK(cudaMalloc(&w, h_w.size() * 2));
  CUDA_OK(cudaMalloc(&a, tokens * d.ffn * 2));
  CUDA_OK(cudaMalloc(&y, tokens * d.ffn * 2));
  CUDA_OK(cudaMalloc(&scale, d.ffn * 4));
  CUDA_OK(cudaMemcpy(x, h_x.data(), h_x.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(w, h_w.data(), h_w.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(scale, h_scale.data(), d.ffn * 4, cudaMemcpyHostToDevice));

  // 1. a = silu(x W_gate^T) * (x W_value^T), W = [gate; value] (native order).
  Status s = gemm::fc1_swiglu({x, DType::bf16, tokens, d.hidden}, {w, DType::bf16, 2 * d.ffn, d.hidden},
                              {a, DType::bf16, tokens, d.ffn}, gemm::GluOrder::gate_value, nullptr, d);
  if (!s.ok()) return std::fprintf(stderr, "fc1_swiglu: %s\n", s.to_string().c_str()), 1;

  // 2. y = gelu(x W_value^T * scale): library nodes around the new one. launch_gemm trusts its
  //    arguments, so a real entry point validates first (see gemm/linear.hpp).
  using Epi = gemm::Epilogue<ColumnScale, gemm::Activate, gemm::StoreRows<bf16_t>>;
  const gemm::GemmOperands<bf16_t> op{x, w + d.ffn * d.hidden, tokens, d.ffn, d.hidden, d.hidden, d.hidden};
  DeviceInfo device;  // launch_gemm picks the main loop and tile shape from it
  s = current_device(device);
  if (!s.ok()) return std::fprintf(stderr, "current_device: %s\n", s.to_string().c_str()), 1;
  s = gemm::launch_gemm<bf16_t, Epi>(op, Epi::Params({scale}, {gemm::Activation::gelu_tanh}, {y, d.ffn}), device,
                                     nullptr);
  if (!s.ok()) return std::fprintf(stderr, "launch_gemm: %s\n", s.to_string().c_str()), 1;
  CUDA_OK(cudaDeviceSynchronize());

  std::vector<bf16_t> h_a(tokens * d.ffn), h_y(tokens * d.ffn);
  CUDA_OK(cudaMemcpy(h_a.data(), a, h_a.size() * 2, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(h_y.data(), y, h_y.size() * 2, cudaMemcpyDeviceToHost));
  std::printf("fc1 a[0][0..3] = %g %g %g %g\n", to_float(h_a[0]), to_float(h_a[1]), to_float(h_a[2]), to_float(h_a[3]));
  std::printf("custom y[0][0..3] = %g %g %g %g\n", to_float(h_y[0]), to_float(h_y[1]), to_float(h_y[2]), to_float(h_y[3]));
  cudaFree(x);
  cudaFree(w);
  cudaFree(a);
  cudaFree(y);
  cudaFree(scale);
  return 0;
}
