// Probe (not part of the library): how fast can a register row kernel run the bf16 mid rows, by
// thread layout (threads per row T, 16-byte vectors per thread C, rows per CTA R) and by when the
// parameter vectors are loaded (PF 0: per vector just before its store, as the library does;
// 1: all of them right after the row's loads; 2: all of them after the reduction, before any
// store). Aligned rows only. Against the library's own call and cudaMemcpyAsync of the same
// bytes, in the same run, rotating over enough buffer sets to stay out of L2.
//
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I include tools/wip/row_layout_probe.cu
#include "fusekit/reduce.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

enum Op { kRms = 0, kLn = 1, kRmsMod = 2, kSoftmax = 3 };

struct Args {
  const __nv_bfloat16* x;
  __nv_bfloat16* y;
  const __nv_bfloat16* w;
  const __nv_bfloat16* b;
  const __nv_bfloat16* scale;  // table rows, stride mod_stride
  const __nv_bfloat16* shift;
  const int* idx;
  long mod_stride;
  long rows;
  int cols;
  float inv_cols, eps;
};

__device__ __forceinline__ void unpack(float (&f)[8], uint4 v) {
  const unsigned u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(u[i] << 16);
    f[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
  }
}
__device__ __forceinline__ uint4 pack(const float (&f)[8]) {
  unsigned u[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_bfloat162 h = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    __builtin_memcpy(&u[i], &h, 4);
  }
  return make_uint4(u[0], u[1], u[2], u[3]);
}

template <int T, int R> struct Reducer {
  static constexpr int kWarps = T >= 32 ? T / 32 : 1;
  float* smem;  // [R][kWarps] per slot
  __device__ float sum(float v, int slot) {
#pragma unroll
    for (int o = (T >= 32 ? 16 : T / 2); o >= 1; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    if constexpr (kWarps > 1) {
      float* p = smem + (slot * R + threadIdx.y) * kWarps;
      if (threadIdx.x % 32 == 0) p[threadIdx.x / 32] = v;
      __syncthreads();
      v = p[0];
#pragma unroll
      for (int i = 1; i < kWarps; ++i) v += p[i];
    }
    return v;
  }
  __device__ float max(float v, int slot) {
#pragma unroll
    for (int o = (T >= 32 ? 16 : T / 2); o >= 1; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr (kWarps > 1) {
      float* p = smem + (slot * R + threadIdx.y) * kWarps;
      if (threadIdx.x % 32 == 0) p[threadIdx.x / 32] = v;
      __syncthreads();
      v = p[0];
#pragma unroll
      for (int i = 1; i < kWarps; ++i) v = fmaxf(v, p[i]);
    }
    return v;
  }
};

template <int T, int C, int R, int OP, int PF>
__global__ void __launch_bounds__(T * R) probe_kernel(Args a) {
  __shared__ float red[2 * R * Reducer<T, R>::kWarps];
  Reducer<T, R> reducer{red};
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const long row = long(blockIdx.x) * R + threadIdx.y;
  const bool active = row < a.rows;
  const int nvec = a.cols / 8;
  const int t = threadIdx.x;
  auto live = [&](int c) { return active && t + c * T < nvec; };
  const uint4* xin = reinterpret_cast<const uint4*>(a.x + (active ? row : 0) * a.cols);
  uint4 xv[C];
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (live(c)) xv[c] = xin[t + c * T];

  constexpr bool kW = OP != kSoftmax, kB = OP == kLn, kM = OP == kRmsMod;
  const uint4* wv = reinterpret_cast<const uint4*>(a.w);
  const uint4* bv = reinterpret_cast<const uint4*>(a.b);
  const uint4 *sv = nullptr, *hv = nullptr;
  if constexpr (kM) {
    const int m = active ? a.idx[row] : 0;
    sv = reinterpret_cast<const uint4*>(a.scale + m * a.mod_stride);
    hv = reinterpret_cast<const uint4*>(a.shift + m * a.mod_stride);
  }
  uint4 pw[C], pb[C], ps[C], ph[C];
  auto load_params = [&](int c) {
    if constexpr (kW) pw[c] = wv[t + c * T];
    if constexpr (kB) pb[c] = bv[t + c * T];
    if constexpr (kM) {
      ps[c] = sv[t + c * T];
      ph[c] = hv[t + c * T];
    }
  };
  if constexpr (PF == 1) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) load_params(c);
  }
  if constexpr (PF == 3) {  // the parameter lines into L1 only; loaded per vector before its store
    auto l1 = [](const void* q) { asm volatile("prefetch.global.L1 [%0];" ::"l"(q)); };
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        if constexpr (kW) l1(wv + t + c * T);
        if constexpr (kB) l1(bv + t + c * T);
        if constexpr (kM) {
          l1(sv + t + c * T);
          l1(hv + t + c * T);
        }
      }
  }
  asm volatile("griddepcontrol.launch_dependents;");

  float s0 = 0.f, s1 = 0.f, mean = 0.f, rstd = 0.f, mx = 0.f;
  if constexpr (OP == kRms || OP == kRmsMod) {
    float acc[8] = {};
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        float f[8];
        unpack(f, xv[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[e] = fmaf(f[e], f[e], acc[e]);
      }
#pragma unroll
    for (int w = 4; w >= 1; w /= 2)
#pragma unroll
      for (int e = 0; e < w; ++e) acc[e] += acc[e + w];
    s0 = reducer.sum(acc[0], 0);
    rstd = rsqrtf(s0 * a.inv_cols + a.eps);
  } else if constexpr (OP == kLn) {
    float acc[8] = {};
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        float f[8];
        unpack(f, xv[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[e] += f[e];
      }
#pragma unroll
    for (int w = 4; w >= 1; w /= 2)
#pragma unroll
      for (int e = 0; e < w; ++e) acc[e] += acc[e + w];
    mean = reducer.sum(acc[0], 0) * a.inv_cols;
    float acc2[8] = {};
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        float f[8];
        unpack(f, xv[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const float d = f[e] - mean;
          acc2[e] = fmaf(d, d, acc2[e]);
        }
      }
#pragma unroll
    for (int w = 4; w >= 1; w /= 2)
#pragma unroll
      for (int e = 0; e < w; ++e) acc2[e] += acc2[e + w];
    s1 = reducer.sum(acc2[0], 1);
    rstd = rsqrtf(s1 * a.inv_cols + a.eps);
  } else {
    float acc[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[e] = -INFINITY;
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        float f[8];
        unpack(f, xv[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[e] = fmaxf(acc[e], f[e]);
      }
#pragma unroll
    for (int w = 4; w >= 1; w /= 2)
#pragma unroll
      for (int e = 0; e < w; ++e) acc[e] = fmaxf(acc[e], acc[e + w]);
    mx = reducer.max(acc[0], 0) * 1.4426950408889634f;
    float acc2[8] = {};
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) {
        float f[8];
        unpack(f, xv[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc2[e] += exp2f(fmaf(f[e], 1.4426950408889634f, -mx));
      }
#pragma unroll
    for (int w = 4; w >= 1; w /= 2)
#pragma unroll
      for (int e = 0; e < w; ++e) acc2[e] += acc2[e + w];
    s1 = 1.f / reducer.sum(acc2[0], 1);
  }

  if (!active) return;
  if constexpr (PF == 2) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (live(c)) load_params(c);
  }
  uint4* yout = reinterpret_cast<uint4*>(a.y + row * a.cols);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (!live(c)) continue;
    if constexpr (PF == 0 || PF == 3) load_params(c);
    float f[8];
    unpack(f, xv[c]);
    if constexpr (OP == kSoftmax) {
#pragma unroll
      for (int e = 0; e < 8; ++e) f[e] = exp2f(fmaf(f[e], 1.4426950408889634f, -mx)) * s1;
    } else {
      float w[8];
      unpack(w, pw[c]);
#pragma unroll
      for (int e = 0; e < 8; ++e) f[e] = (OP == kLn ? (f[e] - mean) * rstd : f[e] * rstd) * w[e];
      if constexpr (kB) {
        float b[8];
        unpack(b, pb[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) f[e] += b[e];
      }
      if constexpr (kM) {
        float s[8], h[8];
        unpack(s, ps[c]);
        unpack(h, ph[c]);
#pragma unroll
        for (int e = 0; e < 8; ++e) f[e] = fmaf(f[e], 1.f + s[e], h[e]);
      }
    }
    yout[t + c * T] = pack(f);
  }
}

// ------------------------------------------------------------------------------------------------

struct Case {
  const char* name;
  Op op;
  long rows;
  int cols;
};

struct Buffers {
  Case cs;
  int sets;
  size_t elems;
  __nv_bfloat16 *x, *y, *w, *b, *table;
  int* idx;
  std::vector<float> hx, hw, hb, htable;
  std::vector<int> hidx;
  explicit Buffers(const Case& c) : cs(c) {
    elems = size_t(c.rows) * c.cols;
    const size_t bytes = elems * 2 * 2;
    sets = int(std::max<size_t>(2, (512ull << 20) / bytes));
    if (sets > 64) sets = 64;
    CK(cudaMalloc(&x, elems * 2 * sets));
    CK(cudaMalloc(&y, elems * 2 * sets));
    CK(cudaMalloc(&w, size_t(c.cols) * 2));
    CK(cudaMalloc(&b, size_t(c.cols) * 2));
    CK(cudaMalloc(&table, size_t(c.cols) * 2 * 18));
    CK(cudaMalloc(&idx, size_t(c.rows) * 4));
    std::mt19937 rng(1234);
    std::normal_distribution<float> nd(0.f, 1.f);
    std::vector<__nv_bfloat16> tmp(elems);
    hx.resize(elems);
    for (size_t i = 0; i < elems; ++i) {
      tmp[i] = __float2bfloat16(2.f * nd(rng));
      hx[i] = __bfloat162float(tmp[i]);
    }
    for (int s = 0; s < sets; ++s) CK(cudaMemcpy(x + s * elems, tmp.data(), elems * 2, cudaMemcpyHostToDevice));
    auto fill = [&](std::vector<float>& h, __nv_bfloat16* d, size_t n, float m, float sd) {
      std::vector<__nv_bfloat16> t(n);
      h.resize(n);
      for (size_t i = 0; i < n; ++i) {
        t[i] = __float2bfloat16(m + sd * nd(rng));
        h[i] = __bfloat162float(t[i]);
      }
      CK(cudaMemcpy(d, t.data(), n * 2, cudaMemcpyHostToDevice));
    };
    fill(hw, w, c.cols, 1.f, 0.2f);
    fill(hb, b, c.cols, 0.f, 0.2f);
    fill(htable, table, size_t(c.cols) * 18, 0.f, 0.3f);
    hidx.resize(c.rows);
    for (auto& v : hidx) v = int(rng() % 3);
    CK(cudaMemcpy(idx, hidx.data(), hidx.size() * 4, cudaMemcpyHostToDevice));
  }
  ~Buffers() {
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
    cudaFree(b);
    cudaFree(table);
    cudaFree(idx);
  }
  Args args(int s) const {
    Args a{};
    a.x = x + s * elems;
    a.y = y + s * elems;
    a.w = w;
    a.b = b;
    a.shift = table;  // H3 order: shift, scale, ...
    a.scale = table + cs.cols;
    a.idx = idx;
    a.mod_stride = 6L * cs.cols;
    a.rows = cs.rows;
    a.cols = cs.cols;
    a.inv_cols = 1.f / cs.cols;
    a.eps = 1e-5f;
    return a;
  }
  // Normwise relative error of set 0's output against a float64 reference on 64 rows.
  double check() const {
    std::vector<__nv_bfloat16> out(elems);
    CK(cudaMemcpy(out.data(), y, elems * 2, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    const int n = cs.cols;
    for (long r = 0; r < cs.rows; r += std::max(1L, cs.rows / 64)) {
      const float* xr = &hx[size_t(r) * n];
      std::vector<double> ref(n);
      if (cs.op == kSoftmax) {
        double m = -1e300, s = 0;
        for (int i = 0; i < n; ++i) m = std::max(m, double(xr[i]));
        for (int i = 0; i < n; ++i) s += std::exp(xr[i] - m);
        for (int i = 0; i < n; ++i) ref[i] = std::exp(xr[i] - m) / s;
      } else {
        double mean = 0, var = 0;
        if (cs.op == kLn) {
          for (int i = 0; i < n; ++i) mean += xr[i];
          mean /= n;
        }
        for (int i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
        const double rstd = 1 / std::sqrt(var / n + 1e-5);
        for (int i = 0; i < n; ++i) {
          double v = (xr[i] - mean) * rstd * hw[i];
          if (cs.op == kLn) v += hb[i];
          if (cs.op == kRmsMod) {
            const size_t base = size_t(hidx[r]) * 6 * n;
            v = v * (1 + htable[base + n + i]) + htable[base + i];
          }
          ref[i] = v;
        }
      }
      for (int i = 0; i < n; ++i) {
        const double d = double(__bfloat162float(out[size_t(r) * n + i])) - ref[i];
        err += d * d;
        norm += ref[i] * ref[i];
      }
    }
    return std::sqrt(err / norm);
  }
};

using Launch = std::function<void(cudaStream_t, int)>;

// Median over 7 replays of a CUDA graph of `calls` back-to-back launches rotating over the sets
// (as the harness's gpu_throughput mode: no host time in the figure), per launch.
double time_us(const Launch& launch, int sets, cudaStream_t st) {
  for (int i = 0; i < 4; ++i) launch(st, i % sets);
  CK(cudaStreamSynchronize(st));
  CK(cudaGetLastError());
  const int calls = 100;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(st, i % sets);
  CK(cudaStreamEndCapture(st, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  CK(cudaGraphLaunch(exec, st));  // warm
  CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> v;
  for (int rep = 0; rep < 7; ++rep) {
    CK(cudaEventRecord(e0, st));
    CK(cudaGraphLaunch(exec, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    v.push_back(ms * 1e3 / calls);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return v[v.size() / 2];
}

template <int T, int C, int R, int OP, int PF> Launch probe_launch(const Buffers& b) {
  return [&b](cudaStream_t st, int s) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned((b.cs.rows + R - 1) / R));
    cfg.blockDim = dim3(T, R);
    cfg.stream = st;
    cudaLaunchAttribute at{};
    at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at.val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, probe_kernel<T, C, R, OP, PF>, b.args(s)));
  };
}

Launch library_launch(const Buffers& b) {
  return [&b](cudaStream_t st, int s) {
    using fusekit::DType;
    const Args a = b.args(s);
    fusekit::ConstRows in{a.x, DType::bf16, b.cs.rows, b.cs.cols, 0};
    fusekit::Rows out{a.y, DType::bf16, b.cs.rows, b.cs.cols, 0};
    fusekit::NormOptions o;
    using D = fusekit::DTypes<fusekit::bf16_t>;
    fusekit::Status status;
    if (b.cs.op == kSoftmax) {
      status = fusekit::softmax<D>(in, out, {}, st);
    } else {
      o.weight = {a.w, DType::bf16, b.cs.cols};
      if (b.cs.op == kLn) {
        o.bias = {a.b, DType::bf16, b.cs.cols};
        status = fusekit::layer_norm<D>(in, out, o, st);
      } else {
        if (b.cs.op == kRmsMod) o.modulation = {a.scale, a.shift, DType::bf16, 3, a.mod_stride, a.idx};
        status = fusekit::rms_norm<D>(in, out, o, st);
      }
    }
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", status.to_string().c_str());
      std::exit(1);
    }
  };
}

Launch copy_launch(const Buffers& b) {
  return [&b](cudaStream_t st, int s) {
    CK(cudaMemcpyAsync(b.y + s * b.elems, b.x + s * b.elems, b.elems * 2, cudaMemcpyDeviceToDevice, st));
  };
}

struct Variant {
  std::string name;
  std::function<Launch(const Buffers&)> make;
};

template <int OP, int T, int C, int R> void add(std::vector<Variant>& v) {
  char n[64];
  for (int pf : {0, 1}) {
    std::snprintf(n, sizeof n, "T%d C%d R%d pf%d", T, C, R, pf);
    if (OP == kSoftmax && pf != 0) continue;
    if (pf == 0) v.push_back({n, probe_launch<T, C, R, OP, 0>});
    if (pf == 1) v.push_back({n, probe_launch<T, C, R, OP, 1>});
    if (pf == 3) v.push_back({n, probe_launch<T, C, R, OP, 3>});
  }
}

// Layouts per row length (vectors = cols / 8).
template <int OP> std::vector<Variant> variants(int cols) {
  std::vector<Variant> v;
  switch (cols) {
    case 1024:  // 128 vectors
      add<OP, 64, 2, 4>(v), add<OP, 32, 4, 8>(v);
      break;
    case 4096:  // 512 vectors
      add<OP, 256, 2, 1>(v), add<OP, 128, 4, 2>(v), add<OP, 64, 8, 4>(v);
      break;
    case 5376:  // 672 vectors
      add<OP, 224, 3, 1>(v), add<OP, 192, 4, 1>(v), add<OP, 128, 6, 1>(v);
      break;
    case 8192:  // 1024 vectors
      add<OP, 256, 4, 1>(v), add<OP, 128, 8, 1>(v);
      break;
    case 16384:  // 2048 vectors
      add<OP, 256, 8, 1>(v), add<OP, 128, 16, 1>(v);
      break;
  }
  return v;
}

int main(int argc, char** argv) {
  const Case cases[] = {
      {"rms_norm 8192x1024", kRms, 8192, 1024},      {"layer_norm 8192x1024", kLn, 8192, 1024},
      {"softmax 8192x1024", kSoftmax, 8192, 1024},    {"rms_norm 2048x4096", kRms, 2048, 4096},
      {"layer_norm 2048x4096", kLn, 2048, 4096},      {"softmax 2048x4096", kSoftmax, 2048, 4096},
      {"rms_norm 1024x8192", kRms, 1024, 8192},      {"layer_norm 1024x8192", kLn, 1024, 8192},
      {"rms_norm 512x16384", kRms, 512, 16384},      {"layer_norm 512x16384", kLn, 512, 16384},
      {"rms_norm 1561x5376", kRms, 1561, 5376},      {"layer_norm 1561x5376", kLn, 1561, 5376},
      {"rms_mod tokens=925", kRmsMod, 925, 5376},     {"rms_mod tokens=4096", kRmsMod, 4096, 5376},
      {"rms_norm tokens=4096", kRms, 4096, 5376},      {"rms_norm 5462x1537", kRms, 5462, 1537},
      {"layer_norm 5462x1537", kLn, 5462, 1537},      {"softmax 5462x1537", kSoftmax, 5462, 1537},
  };
  const char* filter = argc > 1 ? argv[1] : "";
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (const Case& c : cases) {
    if (!std::string(c.name).starts_with(filter)) continue;
    Buffers b(c);
    const double copy = time_us(copy_launch(b), b.sets, st);
    const double lib = time_us(library_launch(b), b.sets, st);
    const double lib_err = b.check();
    std::printf("%-22s copy %7.2f us | library %7.2f us (%.2f of copy, err %.1e)\n", c.name, copy, lib, copy / lib,
                lib_err);
    std::vector<Variant> vs = c.op == kRms      ? variants<kRms>(c.cols)
                              : c.op == kLn     ? variants<kLn>(c.cols)
                              : c.op == kRmsMod ? variants<kRmsMod>(c.cols)
                                                : variants<kSoftmax>(c.cols);
    if (c.cols % 8) continue;  // misaligned rows: the library only
    for (const Variant& v : vs) {
      CK(cudaMemset(b.y, 0xff, b.elems * 2));
      const double us = time_us(v.make(b), b.sets, st);
      const double err = b.check();
      std::printf("%-22s   %-16s %7.2f us  %.2f of copy  %.2fx library  err %.1e%s\n", c.name, v.name.c_str(), us,
                  copy / us, lib / us, err, err < 8e-3 ? "" : "  WRONG");
    }
    std::fflush(stdout);
  }
  return 0;
}
