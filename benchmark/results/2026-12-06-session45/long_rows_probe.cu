// Forty-fifth session probe: how the sliced long rows' time grows with the rows of a call (the
// waves), beside what the occupancy API says of their clusters. For each (dtype, N, slice KB) and a
// list of row counts: the planned kernel, cudaOccupancyMaxActiveClusters for it, and the median of
// 7 graph replays of 20 calls (inputs rotated over 96 MB, so L2 does not serve them), us a call.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I include -I test -I build/release/_deps/doctest-src
#include <fusekit/reduce.hpp>
#include "reduce/row_policy.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

using namespace fusekit;

template <class T, class Policy>
void probe(std::int64_t cols, int slice_kb, const std::vector<std::int64_t>& row_counts, bool persist) {
  reduce::slice_bytes().store(slice_kb * 1024);
  reduce::sliced_persistence().store(persist ? reduce::SlicedPersistence::automatic : reduce::SlicedPersistence::never);
  const std::int64_t max_rows = *std::max_element(row_counts.begin(), row_counts.end());
  const std::size_t call_bytes = std::size_t(max_rows * cols) * sizeof(T);
  const int sets = int(std::max<std::size_t>(2, (96u << 20) / call_bytes + 1));
  std::vector<T*> in(sets), out(sets);
  for (int s = 0; s < sets; ++s) {
    OK(cudaMalloc(&in[s], call_bytes));
    OK(cudaMalloc(&out[s], call_bytes));
    std::vector<T> h(std::size_t(max_rows * cols));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = from_float<T>(float(int((i * 2654435761u + s) % 2001) - 1000) / 700.f);
    OK(cudaMemcpy(in[s], h.data(), call_bytes, cudaMemcpyHostToDevice));
  }
  T* w;
  OK(cudaMalloc(&w, cols * sizeof(T)));
  OK(cudaMemset(w, 0x3c, cols * sizeof(T)));
  cudaStream_t st;
  OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  DeviceInfo device;
  if (!current_device(device).ok()) std::exit(3);
  for (const std::int64_t rows : row_counts) {
    auto call = [&](int s) {
      ConstRows x{in[s], dtype_v<T>, rows, cols};
      Rows y{out[s], dtype_v<T>, rows, cols};
      Status r;
      if constexpr (std::is_same_v<Policy, reduce::SoftmaxPolicy>) {
        r = softmax(x, y, SoftmaxOptions{}, st);
      } else {
        NormOptions o;
        o.weight = {w, dtype_v<T>, cols};
        r = rms_norm(x, y, o, st);
      }
      if (!r.ok()) { std::printf("call: %s\n", r.to_string().c_str()); std::exit(1); }
    };
    // The plan, and what the occupancy API says of the sliced kernel's clusters.
    reduce::RowParams p;
    NormOptions o;
    o.weight = {w, dtype_v<T>, cols};
    ConstRows x{in[0], dtype_v<T>, rows, cols};
    Rows y{out[0], dtype_v<T>, rows, cols};
    reduce::RowPlan plan;
    bool sm90 = true;
    Status v;
    if constexpr (std::is_same_v<Policy, reduce::SoftmaxPolicy>) v = reduce::validate<Policy>(x, y, NormOptions{}, p);
    else v = reduce::validate<Policy>(x, y, o, p);
    if (!v.ok() || !reduce::plan_rows<Policy>(p, dtype_v<T>, device, sm90, plan).ok()) std::exit(2);
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
    for (int i = 0; i < 20; ++i) call(i % sets);
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
      if (r > 0) t.push_back(ms * 1000.f / 20.f);
    }
    std::sort(t.begin(), t.end());
    const double bytes = 2.0 * double(rows * cols) * sizeof(T);
    std::printf("%-7s %-8s %-5s N=%-7lld slice=%-3dKB M=%-4lld %8.2f us %7.0f GB/s  clusters_resident=%d ctas_per_sm=%d  %s\n",
                persist ? "persist" : "waves", Policy::kName, sizeof(T) == 2 ? "bf16" : "f32", (long long)cols, slice_kb, (long long)rows, t[t.size() / 2],
                bytes / t[t.size() / 2] / 1e3, clusters, blocks, reduce::describe(plan).c_str());
    std::fflush(stdout);
    OK(cudaGraphExecDestroy(ge));
    OK(cudaGraphDestroy(g));
  }
  for (int s = 0; s < sets; ++s) cudaFree(in[s]), cudaFree(out[s]);
  cudaFree(w);
  cudaStreamDestroy(st);
}

int main(int argc, char** argv) {
  // argv[1]: "first" (the forty-fifth session's first call: waves only) or "persist" (both ways).
  const bool both = argc > 1 && std::string(argv[1]) == "persist";
  const std::vector<std::int64_t> long_rows{8, 16, 20, 24, 32, 40, 48, 64};
  const std::vector<std::int64_t> mid_rows{64, 128, 132, 133, 192, 256};
  for (bool persist : {false, true}) {
    if (persist && !both) break;
    probe<bf16_t, reduce::RmsNormPolicy>(262144, 0, long_rows, persist);
    probe<bf16_t, reduce::SoftmaxPolicy>(262144, 0, long_rows, persist);
    probe<float, reduce::RmsNormPolicy>(262144, 0, long_rows, persist);
    probe<bf16_t, reduce::RmsNormPolicy>(65536, 0, mid_rows, persist);
    probe<float, reduce::RmsNormPolicy>(65536, 0, mid_rows, persist);
  }
  return 0;
}
