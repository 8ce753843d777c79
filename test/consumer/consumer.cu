// Calls a GEMM entry point (compiled in consumer_gemm_kernels) and a row op on zero rows: valid
// calls that return before any device work, so this runs on a machine without a GPU too.
#include <fusekit/gemm.hpp>
#include <fusekit/reduce.hpp>

#include <cstdio>

int main() {
  using namespace fusekit;
  const ConstRows a{nullptr, DType::bf16, 0, 64, 0};
  alignas(16) static bf16_t w[8 * 64];  // validation reads no element
  const Status linear = gemm::linear(a, {w, DType::bf16, 8, 64, 0}, Rows{nullptr, DType::bf16, 0, 8, 0});
  const Status norm = rms_norm(a, Rows{nullptr, DType::bf16, 0, 64, 0});
  std::printf("linear: %s, rms_norm: %s\n", linear.to_string().c_str(), norm.to_string().c_str());
  return linear.ok() && norm.ok() ? 0 : 1;
}
