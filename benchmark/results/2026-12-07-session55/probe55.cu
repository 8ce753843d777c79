// Diagnostic (not part of the library), fifty-fifth session: would 256 x 160 swapped tiles (two
// N-tiles a CTA, one a consumer warpgroup: two m64n160k16 a k16 step, 160 accumulators; cuBLASLt's
// nvjet_sm90_tst_256x160 shape) take out_proj and fc2 at 925 tokens below cuBLASLt + the unfused
// gated residual? 126 tiles, one a CTA. K segments (split_k.hpp's S, which decide the bits) are
// folded through global memory (fragment_fold.hpp's Fragment<160>: stored after the first,
// accumulated after the middle ones, added to the registers while staging after the last), or K
// runs in one segment (other bits: the upper bound of a plan without segments). The tile is staged
// whole in the drained ring, each consumer runs its N-tile's epilogue; the producer warpgroup's
// other warps warm L2 with the residual first. Every sample interleaved; weight-like data.
// Built with -DPROBE55B (probe55b, prepared, not run): the same tiles on a 2-stage ring (104 KB,
// what would stay beside a K-segment running sum kept three quarters in shared memory; consumer 1
// stages its N-tile past the shared storage), bare calls only, against the 4-stage ring, HEAD and
// cuBLASLt; without it, the variants that ran in call 1.
// Build (from the repository root; -o probe55b -DPROBE55B for the other):
//   nvcc -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 -I include -Xptxas -v \
//        -o probe55 benchmark/results/2026-12-07-session55/probe55.cu -lcuda -lcublasLt
#include <fusekit/gemm/linear.hpp>
#include <fusekit/gemm/fragment_fold.hpp>
#include "../../../test/gemm/cublaslt_gemm.hpp"
#include "../../../examples/layer_report/unfused_epilogue.cuh"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace fusekit;
using namespace fusekit::gemm;
using T = bf16_t;
using Fused = ResidualEpilogue<T, T>;
using Bare = LinearEpilogue<T, T>;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define ST(x) do { Status s = (x); if (!s.ok()) { std::printf("%s: %s\n", #x, s.message().c_str()); std::exit(1); } } while (0)

template <int Stages> using Wide160 = WideSwappedMainLoopSm90<T, 160, Stages, 16>;

// Consumer cw's N-tile over k-slices [begin, end), summed from zero (WideSwappedMainLoopSm90::consume with a range).
template <class ML>
__device__ void consume_range(typename ML::SharedStorage& s, RingPosition& pos, int begin, int end, int cw,
                              typename ML::Accumulators& acc) {
  BatchReleaser release;
  for (int kb = begin; kb < end; ++kb) {
    gemm::ptx::mbarrier_wait(&s.full[pos.stage], pos.phase);
    gemm::ptx::wgmma_fence();
    const std::uint64_t desc_x = gemm::ptx::smem_descriptor_sw128(s.a[pos.stage]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::uint64_t desc_w = gemm::ptx::smem_descriptor_sw128(s.b[pos.stage] + (2 * cw + h) * ML::kHalfBytes);
#pragma unroll
      for (int k16 = 0; k16 < ML::BK / 16; ++k16)
        gemm::ptx::wgmma_m64k16<T, ML::BM>(acc.v[h], desc_w + 2 * k16, desc_x + 2 * k16, kb > begin || k16 > 0);
    }
    gemm::ptx::wgmma_commit_group();
    release.committed(s.empty, pos.stage);
    pos.advance<ML::kStages>();
  }
  release.drain(s.empty);
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < ML::BM / 2; ++i) gemm::ptx::fence_registers(acc.v[h][i]);
}

template <class ML, class Epi, int Extra = 0>
__global__ void __launch_bounds__(ML::kThreads, 1)
    wide160_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map, GemmExtent extent,
                   std::int64_t n_tiles, TileOrder order, KSegments segments, float* workspace, typename Epi::Params params) {
  auto& s = aligned_shared_storage<typename ML::SharedStorage>();
  if (threadIdx.x == 0) ML::init(s);
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + ML::BK - 1) / ML::BK);
  const std::int64_t t = blockIdx.x;  // one tile a CTA (the launch checks)
  std::int64_t m_tile, pair;
  order.coords(t, m_tile, pair);
  auto weight_rows_of = [&](std::int64_t n) {
    if (n < n_tiles) return Epi::weight_rows(params, extent.n, ML::kSubN, n);
    WeightRows none{};
    none.first[0] = none.first[1] = extent.n;
    return none;
  };
  const std::int64_t m0 = m_tile * ML::BM;
  const int rows = static_cast<int>(extent.m - m0 < ML::BM ? extent.m - m0 : ML::BM);
  RingPosition pos;
  if (warpgroup == 0) {
    gemm::ptx::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      gemm::ptx::prefetch_tensor_map(&a_map);
      gemm::ptx::prefetch_tensor_map(&w_map);
      const WeightRows wr[ML::kNSub] = {weight_rows_of(2 * pair), weight_rows_of(2 * pair + 1)};
      ML::produce(s, pos, &a_map, &w_map, k_blocks, m0, wr);
    } else if (threadIdx.x >= 32) {
      for (int sub = 0; sub < 2; ++sub)
        if (2 * pair + sub < n_tiles) Epi::prefetch(params, m0, rows, weight_rows_of(2 * pair + sub), threadIdx.x - 32, 96);
    }
  } else {
    gemm::ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1, tid = threadIdx.x % 128;
    using Frag = Fragment<ML::BM>;  // both halves' fragments, 160 floats a thread
    float* slot = workspace + (blockIdx.x * 2 + cw) * Frag::kFloats;
    typename ML::Accumulators acc;
    for (int seg = 0; seg < segments.count; ++seg) {
      int begin, end;
      segments.range(seg, k_blocks, begin, end);
      consume_range<ML>(s, pos, begin, end, cw, acc);
      if (seg + 1 == segments.count) break;
      if (seg == 0)
        Frag::store(slot, &acc.v[0][0], tid);
      else
        Frag::accumulate(slot, &acc.v[0][0], tid);
    }
    asm volatile("bar.sync 3, 256;\n" ::: "memory");  // both consumers' last wgmmas retired: the ring is free
    constexpr int kLd = ML::kTileLd;
    float* whole = reinterpret_cast<float*>(&s.a[0][0]) + cw * ML::BM * kLd;
    if constexpr (Extra > 0) {  // consumer 1's N-tile past the shared storage
      static_assert(ML::BM * kLd * sizeof(float) <= sizeof(s.a) + sizeof(s.b) && ML::BM * kLd * sizeof(float) <= Extra);
      if (cw == 1) whole = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(&s) + (sizeof(s) + 15) / 16 * 16);
    } else {
      static_assert(2 * ML::BM * kLd * sizeof(float) <= sizeof(s.a) + sizeof(s.b), "both tiles fit the ring");
    }
    // Stage (slot + acc) or acc, transposed (stage_fragment_chunk's places), 8 float4 loads in flight.
    const int warp = tid / 32, lane = tid % 32;
    constexpr int kBlocks = ML::BM / 8;  // n8 blocks a half
#pragma unroll
    for (int q0 = 0; q0 < 2 * kBlocks; q0 += 8) {
      float4 r[8];
#pragma unroll
      for (int q = 0; q < 8; ++q)
        r[q] = segments.count > 1 && q0 + q < 2 * kBlocks ? Frag::load(slot, q0 + q, tid) : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        if (q0 + q >= 2 * kBlocks) break;
        const int h = (q0 + q) / kBlocks, j = (q0 + q) % kBlocks;
        const float* v = &acc.v[h][4 * j];
        const int col = h * ML::kHalfRows + warp * 16 + lane / 4, row = j * 8 + (lane % 4) * 2;
        float* p = &whole[row * kLd + col];
        p[0] = r[q].x + v[0];
        p[kLd] = r[q].y + v[1];
        p[8] = r[q].z + v[2];
        p[kLd + 8] = r[q].w + v[3];
      }
    }
    const std::int64_t n_tile = 2 * pair + cw;
    if (n_tile < n_tiles) {
      const WeightRows wr = weight_rows_of(n_tile);
      AccTile tile = AccTile::staged(whole, kLd, m0, extent.m - m0, ML::BM, ML::kHalfRows, wr, tid, 128, 1 + cw);
      tile.sync();
      Epi::apply(params, tile);
      Epi::release(params, m0, rows, wr, tid, 128);
    }
  }
}

template <class ML, class Epi, int Extra = 0>
void launch_wide160(const GemmOperands<T>& op, const typename Epi::Params& params, KSegments segments, float* workspace,
                    const DeviceInfo& dev) {
  CUtensorMap a_map, w_map;
  ST(make_tensor_map_sw128(a_map, op.a, gemm::detail::tensor_map_type<T>(), op.m, op.k, op.lda, ML::BM));
  ST(make_tensor_map_sw128(w_map, op.w, gemm::detail::tensor_map_type<T>(), op.n, op.k, op.ldw, ML::kHalfRows));
  const std::int64_t n_tiles = op.n / 128;
  const TileOrder order{(op.m + ML::BM - 1) / ML::BM, (n_tiles + 1) / 2};
  if (order.count() > dev.sm_count) { std::printf("one tile a CTA only\n"); std::exit(1); }
  auto* kernel = &wide160_kernel<ML, Epi, Extra>;
  const int smem = int(ML::kSmemBytes) + (Extra > 0 ? Extra + 16 : 0);
  static bool set = false;
  if (!set) { CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); set = true; }
  kernel<<<unsigned(order.count()), ML::kThreads, smem>>>(a_map, w_map, GemmExtent{op.m, op.n, op.k}, n_tiles,
                                                                    order, segments, workspace, params);
}

static void fill(T* d, std::size_t count, unsigned seed, double sd) {
  std::vector<unsigned short> h(count);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.f, static_cast<float>(sd));
  for (auto& v : h) { const float f = dist(rng); unsigned u; std::memcpy(&u, &f, 4); v = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }
  CK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
}

// The variants' calls timed in turns, `samples` rounds of `calls` calls each (the order rotated a
// round, so none always follows the same one), after 3 warm-up calls each; medians printed.
using Variant = std::pair<std::string, std::function<void()>>;
static void time_interleaved(std::vector<Variant>& vs, int calls, int samples, long long m, long long k) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> us(vs.size());
  for (auto& v : vs) { for (int i = 0; i < 3; ++i) v.second(); }
  CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
  for (int s = 0; s < samples; ++s)
    for (std::size_t jj = 0; jj < vs.size(); ++jj) {
      const std::size_t j = (jj + s) % vs.size();
      CK(cudaEventRecord(e0));
      for (int i = 0; i < calls; ++i) vs[j].second();
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      us[j].push_back(ms * 1000 / calls);
    }
  for (std::size_t j = 0; j < vs.size(); ++j) {
    std::sort(us[j].begin(), us[j].end());
    std::printf("m=%lld k=%lld %-20s median %8.2f  min %8.2f  max %8.2f us/call (%d x %d calls)\n", m, k,
                vs[j].first.c_str(), us[j][samples / 2], us[j][0], us[j][samples - 1], samples, calls);
  }
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20, samples = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::int64_t m = argc > 3 ? std::atoll(argv[3]) : 925, n = 5376, gate_rows = 3;
  DeviceInfo dev; ST(current_device(dev));
  float* workspace; CK(cudaMalloc(&workspace, std::size_t(dev.sm_count) * 2 * 160 * 128 * 4));
  for (std::int64_t k : {7168, 14336}) {
    T *a, *w, *y, *y2, *y3, *res, *gate; std::int32_t* idx;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2)); CK(cudaMalloc(&y2, m * n * 2));
    CK(cudaMalloc(&y3, m * n * 2));
    CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
    fill(w, n * k, 12345, 0.02); fill(a, m * k, 777, 1.0); fill(res, m * n, 99, 1.0); fill(gate, gate_rows * n, 5, 0.5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    GemmOperands<T> op{a, w, m, n, k, k, k};
    const KSegments seg{choose_k_segments(42, int(k / 64), dev.sm_count)}, one{1};
    Fused::Params pf({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y, n});
    Fused::Params pf3({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y3, n});
    Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
    Bare::Params pb3({nullptr}, {Activation::identity}, {y3, n});
    // Bits: the 256 x 160 tiles with the segments against HEAD's kernel, fused and bare.
    std::vector<unsigned short> h1(m * n), h3(m * n);
    auto same = [&](const char* what) {
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h1.data(), y, m * n * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h3.data(), y3, m * n * 2, cudaMemcpyDeviceToHost));
      std::printf("k=%lld segments %d %s: %s\n", (long long)k, seg.count, what, h1 == h3 ? "bits equal" : "BITS DIFFER");
    };
    CK(cudaMemset(y3, 0xff, m * n * 2));
    ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); launch_wide160<Wide160<4>, Fused>(op, pf3, seg, workspace, dev); same("fused");
    CK(cudaMemset(y3, 0xff, m * n * 2));
    ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); launch_wide160<Wide160<4>, Bare>(op, pb3, seg, workspace, dev); same("bare");
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
#ifdef PROBE55B
    constexpr int kExtra = 160 * 132 * 4;
    CK(cudaMemset(y3, 0xff, m * n * 2));
    launch_wide160<Wide160<2>, Bare, kExtra>(op, pb3, seg, workspace, dev);
    ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); same("bare, 2-stage ring");
    std::vector<Variant> vs = {
      {"HEAD bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
      {"256x160 4st bare 1seg", [&] { launch_wide160<Wide160<4>, Bare>(op, pb3, one, workspace, dev); }},
      {"256x160 2st bare 1seg", [&] { launch_wide160<Wide160<2>, Bare, kExtra>(op, pb3, one, workspace, dev); }},
      {"256x160 2st bare S", [&] { launch_wide160<Wide160<2>, Bare, kExtra>(op, pb3, seg, workspace, dev); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
    };
#else
    std::vector<Variant> vs = {
      {"HEAD fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"HEAD bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
      {"256x160 fused S", [&] { launch_wide160<Wide160<4>, Fused>(op, pf3, seg, workspace, dev); }},
      {"256x160 bare S", [&] { launch_wide160<Wide160<4>, Bare>(op, pb3, seg, workspace, dev); }},
      {"256x160 fused 1seg", [&] { launch_wide160<Wide160<4>, Fused>(op, pf3, one, workspace, dev); }},
      {"256x160 bare 1seg", [&] { launch_wide160<Wide160<4>, Bare>(op, pb3, one, workspace, dev); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
      {"cublaslt+epi", [&] { lt.run(a, w, y2); layer_report::kernels::gated_residual<<<264, 256>>>(y2, gate, idx, res, m, n); }},
    };
#endif
    time_interleaved(vs, calls, samples, (long long)m, (long long)k);
    cudaFree(a); cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(y3); cudaFree(res); cudaFree(gate); cudaFree(idx);
  }
  return 0;
}
