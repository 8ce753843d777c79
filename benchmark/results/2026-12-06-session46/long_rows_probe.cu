// Forty-sixth session probe (the forty-fifth's, without the persistent grid, with residuals and the
// staged parameters as knobs): how the sliced long rows' time grows with the rows of a call, beside
// what the occupancy API says of the planned kernel's clusters. For each (op, dtype, N, residual,
// sliced parameters never / always / automatic) and a list of row counts: the plan, the clusters
// held at once (cudaOccupancyMaxActiveClusters), CTAs an SM, and the median of 7 graph replays of
// 20-256 calls (each row count's inputs rotated over at least 96 MB, so L2 does not serve them), us a call.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I include -I test -o long_rows_probe <this>
#include <fusekit/reduce.hpp>
#include "reduce/row_policy.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

using namespace fusekit;
using Params = reduce::SlicedParams;

template <class T, class Policy>
void probe(std::int64_t cols, bool residual, const std::vector<std::int64_t>& row_counts, Params params) {
  reduce::sliced_params().store(params);
  // Each row count rotates over its own sets of buffers, 96 MB in all, carved from one pool, so that
  // L2 (50 MB) serves no call's input whatever its rows. (The forty-fifth session's probe sized the
  // sets on the largest row count, so its calls of few rows were partly served from L2.)
  const std::int64_t max_rows = *std::max_element(row_counts.begin(), row_counts.end());
  const std::size_t max_call = std::size_t(max_rows * cols) * sizeof(T);
  const std::size_t pool_bytes = std::max<std::size_t>(2 * max_call, (96u << 20) + max_call);
  T *pool_in, *pool_out, *pool_res = nullptr;
  OK(cudaMalloc(&pool_in, pool_bytes));
  OK(cudaMalloc(&pool_out, pool_bytes));
  {
    std::vector<T> h(pool_bytes / sizeof(T));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = from_float<T>(float(int((i * 2654435761u) % 2001) - 1000) / 700.f);
    OK(cudaMemcpy(pool_in, h.data(), pool_bytes, cudaMemcpyHostToDevice));
    if (residual) {
      OK(cudaMalloc(&pool_res, pool_bytes));
      OK(cudaMemcpy(pool_res, h.data(), pool_bytes, cudaMemcpyHostToDevice));
    }
  }
  T *w, *b;
  OK(cudaMalloc(&w, cols * sizeof(T)));
  OK(cudaMalloc(&b, cols * sizeof(T)));
  OK(cudaMemset(w, 0x3c, cols * sizeof(T)));
  OK(cudaMemset(b, 0x1c, cols * sizeof(T)));
  cudaStream_t st;
  OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (const std::int64_t rows : row_counts) {
    const std::size_t call_elems = std::size_t(rows * cols);
    const int sets = int(pool_bytes / sizeof(T) / call_elems);
    std::vector<T*> in(sets), out(sets), res(sets, nullptr);
    for (int s = 0; s < sets; ++s) {
      in[s] = pool_in + s * call_elems;
      out[s] = pool_out + s * call_elems;
      if (residual) res[s] = pool_res + s * call_elems;
    }
    auto options = [&](int s) {
      NormOptions o;
      o.weight = {w, dtype_v<T>, cols};
      if constexpr (std::is_same_v<Policy, reduce::LayerNormPolicy>) o.bias = {b, dtype_v<T>, cols};
      if (residual) {
        o.residual = ConstRows{res[s], dtype_v<T>, rows, cols};
        o.residual_out = Rows{res[s], dtype_v<T>, rows, cols};  // in place, as a block's stream does
      }
      return o;
    };
    auto call = [&](int s) {
      ConstRows x{in[s], dtype_v<T>, rows, cols};
      Rows y{out[s], dtype_v<T>, rows, cols};
      Status r;
      if constexpr (std::is_same_v<Policy, reduce::SoftmaxPolicy>) r = softmax<DTypes<T>>(x, y, SoftmaxOptions{}, st);
      else if constexpr (std::is_same_v<Policy, reduce::LayerNormPolicy>) r = layer_norm<DTypes<T>>(x, y, options(s), st);
      else r = rms_norm<DTypes<T>>(x, y, options(s), st);
      if (!r.ok()) { std::printf("call: %s\n", r.to_string().c_str()); std::exit(1); }
    };
    reduce::RowParams p;
    ConstRows x{in[0], dtype_v<T>, rows, cols};
    Rows y{out[0], dtype_v<T>, rows, cols};
    Status v;
    if constexpr (std::is_same_v<Policy, reduce::SoftmaxPolicy>) v = reduce::validate<Policy>(x, y, NormOptions{}, p);
    else v = reduce::validate<Policy>(x, y, options(0), p);
    reduce::RowPlan plan;
    DeviceInfo device;
    bool sm90 = false;
    if (!v.ok() || !reduce::plan_on_device<Policy, T, T>(p, plan, device, sm90).ok()) std::exit(2);
    call(0);
    OK(cudaStreamSynchronize(st));
    int clusters = -1, blocks = -1;
    if (plan.staging == reduce::Staging::slices) {
      cudaLaunchConfig_t c{};
      c.gridDim = dim3(unsigned(rows * plan.staged.cluster));
      c.blockDim = dim3(unsigned(plan.staged.threads));
      c.dynamicSmemBytes = plan.staged.stage_bytes;
      cudaLaunchAttribute a{};
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = unsigned(plan.staged.cluster);
      a.val.clusterDim.y = a.val.clusterDim.z = 1;
      c.attrs = &a;
      c.numAttrs = 1;
      auto k = reduce::staged_row_kernel<Policy, T, T, true>;
      OK(cudaOccupancyMaxActiveClusters(&clusters, k, &c));
      OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, plan.staged.threads, plan.staged.stage_bytes));
    }
    cudaGraph_t g;
    cudaGraphExec_t ge;
    OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    const int calls = std::max(20, std::min(sets, 256));  // each set used once a replay: none from L2
    for (int i = 0; i < calls; ++i) call(i % sets);
    OK(cudaStreamEndCapture(st, &g));
    OK(cudaGraphInstantiate(&ge, g, 0));
    cudaEvent_t e0, e1;
    OK(cudaEventCreate(&e0));
    OK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int r = 0; r < 8; ++r) {
      OK(cudaEventRecord(e0, st));
      OK(cudaGraphLaunch(ge, st));
      OK(cudaEventRecord(e1, st));
      OK(cudaEventSynchronize(e1));
      float ms = 0;
      OK(cudaEventElapsedTime(&ms, e0, e1));
      if (r > 0) t.push_back(ms * 1000.f / float(calls));
    }
    std::sort(t.begin(), t.end());
    static constexpr const char* kParams[] = {"auto", "never", "always"};
    std::printf("%-6s %-10s %-5s N=%-7lld res=%d M=%-4lld %8.2f us  clusters_held=%-3d ctas_per_sm=%d stage=%dB  %s\n",
                kParams[int(params)], Policy::kName, sizeof(T) == 2 ? "bf16" : "f32", (long long)cols, int(residual),
                (long long)rows, t[t.size() / 2], clusters, blocks, plan.staged.stage_bytes, reduce::describe(plan).c_str());
    std::fflush(stdout);
    OK(cudaGraphExecDestroy(ge));
    OK(cudaGraphDestroy(g));
  }
  cudaFree(pool_in);
  cudaFree(pool_out);
  cudaFree(pool_res);
  cudaFree(w);
  cudaFree(b);
  cudaStreamDestroy(st);
}

int main() {
  using RMS = reduce::RmsNormPolicy;
  using LN = reduce::LayerNormPolicy;
  // The waves of the aligned slices (28 clusters of bf16 N = 262144 held at once).
  probe<bf16_t, RMS>(262144, false, {1, 8, 16, 24, 28, 29, 32, 64}, Params::automatic);
  probe<bf16_t, reduce::SoftmaxPolicy>(262144, false, {1, 8, 28, 29, 32}, Params::automatic);
  // The staged parameters: never, always, and the automatic choice (as many rows as the device
  // holds clusters of the staged layout at once).
  for (Params params : {Params::never, Params::always, Params::automatic}) {
    probe<bf16_t, RMS>(262144, false, {8, 12, 16, 20, 21, 22, 24}, params);
    probe<bf16_t, LN>(262144, false, {8, 12, 14, 15, 16}, params);
    probe<bf16_t, LN>(262144, true, {4, 7, 8}, params);
    probe<bf16_t, RMS>(65536, false, {32, 66, 67, 96}, params);
    probe<bf16_t, LN>(65536, false, {32, 66, 67}, params);
  }
  return 0;
}
