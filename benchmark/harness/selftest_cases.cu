// Cases that exercise the harness itself (suite "harness"): an affine map y = 2x + 1 over f32
// rows, small (rotated sets) and large (one set), by a kernel and by nothing else. For smoke
// runs on a GPU; FUSEKIT_SELFTEST_BREAK=1 in the environment makes validation fail on purpose.
#include "harness.hpp"

#include "device_timing.hpp"

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using namespace fusekit::bench;

__global__ void affine(const float* x, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = 2.0f * x[i] + 1.0f;
}

struct AffineBuffers {
  std::size_t n = 0;
  std::vector<float> host_x;  // set 0's input
  std::vector<float*> x, y;
  ~AffineBuffers() {
    for (float* p : x) cudaFree(p);
    for (float* p : y) cudaFree(p);
  }
};

Instance make_affine(std::size_t rows, std::size_t cols, int sets) {
  auto b = std::make_shared<AffineBuffers>();
  b->n = rows * cols;
  b->host_x.resize(b->n);
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal;
  for (float& v : b->host_x) v = normal(rng);
  for (int s = 0; s < sets; ++s) {
    float *x = nullptr, *y = nullptr;
    FUSEKIT_BENCH_CUDA(cudaMalloc(&x, b->n * sizeof(float)));
    b->x.push_back(x);
    FUSEKIT_BENCH_CUDA(cudaMalloc(&y, b->n * sizeof(float)));
    b->y.push_back(y);
    FUSEKIT_BENCH_CUDA(cudaMemcpy(x, b->host_x.data(), b->n * sizeof(float), cudaMemcpyHostToDevice));
    FUSEKIT_BENCH_CUDA(cudaMemset(y, 0xFF, b->n * sizeof(float)));  // NaN until written
  }
  Instance inst;
  AffineBuffers* raw = b.get();
  inst.launch = [raw](cudaStream_t s, int set) {
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((raw->n + 255) / 256, 132 * 8));
    affine<<<blocks, 256, 0, s>>>(raw->x[set], raw->y[set], raw->n);
  };
  inst.validate = [raw] {
    std::vector<float> y(raw->n);
    FUSEKIT_BENCH_CUDA(cudaMemcpy(y.data(), raw->y[0], raw->n * sizeof(float), cudaMemcpyDeviceToHost));
    double err = 0, ref_norm = 0;
    const double tweak = std::getenv("FUSEKIT_SELFTEST_BREAK") ? 1.0 : 0.0;
    for (std::size_t i = 0; i < raw->n; ++i) {
      const double ref = 2.0 * raw->host_x[i] + 1.0 + tweak;
      err += (y[i] - ref) * (y[i] - ref);  // NaN (an unwritten element) makes err NaN
      ref_norm += ref * ref;
    }
    Validation v;
    v.rel_err = std::sqrt(err / ref_norm);
    v.ok = v.rel_err < 1e-6;  // false for NaN too
    if (!v.ok) v.message = "affine: rel_err " + std::to_string(v.rel_err) + " >= 1e-6";
    return v;
  };
  inst.keepalive = b;
  return inst;
}

void register_affine() {
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{37, 1537}, {4096, 8192}}) {
    CaseSpec spec;
    spec.suite = "harness";
    spec.op = "affine";
    spec.dtype = "f32";
    spec.shape = std::to_string(rows) + "x" + std::to_string(cols);
    spec.impl = "kernel";
    spec.bytes = 2.0 * rows * cols * sizeof(float);
    spec.working_set_bytes = spec.bytes;
    register_case(spec, [rows, cols](int sets) { return make_affine(rows, cols, sets); });
  }
}
FUSEKIT_BENCH_REGISTER(register_affine);

}  // namespace
