// Diagnostic (not part of the library), fifty-sixth session: can 256 x 160 swapped tiles over the
// whole K (one a CTA, 126 for out_proj and fc2 at 925 tokens: cuBLASLt's shape) run the gated
// residual from the registers, so that the fused call costs the bare GEMM plus ~2 us, not 9-13?
// The epilogue here: the producer thread loads each consumer's residual (two boxes of 160 tokens
// x 64 columns, 128-byte swizzle) into the ring's token slots as they drain; each consumer gathers
// its gate rows (gate[idx[token]], cp.async, the same swizzle) into its own part of the weight
// slots, brings both into the accumulators' places with ldmatrix.trans, computes
// fma(g, y, residual) (AddResidual's arithmetic), rounds, writes with stmatrix.trans over the
// gate tile, and the copy engine stores 80-token boxes. Compared bitwise with the same tiles'
// node epilogue (probe55's kernel, K whole) and timed against HEAD and cuBLASLt (+ the unfused
// gated residual), every sample interleaved; weight-like data.
// Built with -DPROBE56B (probe56b) on the headers of the session's change: the library's calls
// (its automatic choice: the 256 x 160 tiles) in place of HEAD's, and their bits against the
// probe's kernel.
// Build (from the repository root):
//   nvcc -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a] -std=c++20 -I include -Xptxas -v \
//        -o probe56 benchmark/results/2026-12-07-session56/probe56.cu -lcuda -lcublasLt
// probe55.cu's 256 x 160 kernel with the nodes' epilogue (wide160_kernel, launch_wide160), its
// consume_range and fill, by inclusion (its main renamed away).
#define main probe55_main
#include "../2026-12-07-session55/probe55.cu"
#undef main

using FusedEpi = Fused;

// ---- the register epilogue ----
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(fusekit::ptx::smem_addr(smem)));
}
__device__ __forceinline__ void stmatrix_x4_trans(const std::uint32_t (&r)[4], void* smem) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   fusekit::ptx::smem_addr(smem)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}
__device__ __forceinline__ float bf16_lo(std::uint32_t u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float bf16_hi(std::uint32_t u) { return __uint_as_float(u & 0xffff0000u); }
__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

struct GateArgs {
  const T* gate;
  std::int64_t ld_gate;
  const std::int32_t* idx;
  std::int64_t gate_rows;
};

// Byte offset of (token row y, 16-byte chunk c) in a 128-byte-swizzled box of 64 columns.
__device__ __forceinline__ int sw128(int y, int c) { return y * 128 + ((c ^ (y & 7)) << 4); }

template <class ML, bool kFused>
__global__ void __launch_bounds__(ML::kThreads, 1)
    reg_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map,
               const __grid_constant__ CUtensorMap res_map, const __grid_constant__ CUtensorMap out_map,
               GemmExtent extent, std::int64_t n_tiles, TileOrder order, GateArgs ga, typename FusedEpi::Params fp) {
  static_assert(ML::BM == 160 && ML::kStages == 4 && ML::kABytes == 160 * 128, "a token slot holds one 160 x 64 box");
  auto& s = aligned_shared_storage<typename ML::SharedStorage>();
  if (threadIdx.x == 0) ML::init(s);
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = static_cast<int>((extent.k + ML::BK - 1) / ML::BK);
  std::int64_t m_tile, pair;
  order.coords(blockIdx.x, m_tile, pair);
  auto weight_rows_of = [&](std::int64_t n) {
    if (n < n_tiles) return Bare::weight_rows(Bare::Params{}, extent.n, ML::kSubN, n);
    WeightRows none{};
    none.first[0] = none.first[1] = extent.n;
    return none;
  };
  const std::int64_t m0 = m_tile * ML::BM;
  const int rows = static_cast<int>(extent.m - m0 < ML::BM ? extent.m - m0 : ML::BM);
  const WeightRows wr[2] = {weight_rows_of(2 * pair), weight_rows_of(2 * pair + 1)};
  RingPosition pos;
  if (warpgroup == 0) {
    gemm::ptx::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      gemm::ptx::prefetch_tensor_map(&a_map);
      gemm::ptx::prefetch_tensor_map(&w_map);
      ML::produce(s, pos, &a_map, &w_map, k_blocks, m0, wr);
      if constexpr (kFused) {
        // Residual box i (consumer i / 2, W half i % 2) into the token slot of ring position k_blocks + i, as it drains.
        for (int i = 0; i < 4; ++i) {
          gemm::ptx::mbarrier_wait(&s.empty[pos.stage], pos.phase ^ 1u);
          gemm::ptx::mbarrier_arrive_expect_tx(&s.full[pos.stage], ML::kABytes);
          gemm::ptx::tma_load_2d(s.a[pos.stage], &res_map, &s.full[pos.stage], static_cast<int>(wr[i / 2].first[i % 2]),
                                 static_cast<int>(m0));
          pos.advance<ML::kStages>();
        }
      }
    } else if (kFused && threadIdx.x >= 32) {
      for (int sub = 0; sub < 2; ++sub)
        if (2 * pair + sub < n_tiles) FusedEpi::prefetch(fp, m0, rows, wr[sub], threadIdx.x - 32, 96);
    }
  } else {
    gemm::ptx::setmaxnreg_inc<232>();
    const int cw = warpgroup - 1, tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    typename ML::Accumulators acc;
    consume_range<ML>(s, pos, 0, k_blocks, cw, acc);
    // This consumer's quarter of each weight slot is its own now (only its wgmmas read it): piece
    // (h, q) holds W half h's tokens [80 q, 80 q + 80), gate values first, then the outputs.
    auto piece = [&](int h, int q) { return s.b[2 * h + q] + cw * (ML::kBBytes / 2); };
    const bool gated = kFused && ga.gate != nullptr;
    if (gated) {
      const int c16 = tid % 16, h = c16 / 8, cc = c16 % 8;
      const T* col = ga.gate + wr[cw].first[h] + cc * 8;
#pragma unroll 4
      for (int u = 0; u < 20; ++u) {
        const int t = tid / 16 + 8 * u;  // token of the tile
        const bool valid = t < rows;
        const std::int32_t gi = valid ? ga.idx[m0 + t] : 0;
        unsigned char* dst = piece(h, t / 80) + sw128(t % 80, cc);
        if (gi < 0 || gi >= ga.gate_rows)  // AddResidual's loud NaN
          *reinterpret_cast<uint4*>(dst) = make_uint4(0x7fc07fc0u, 0x7fc07fc0u, 0x7fc07fc0u, 0x7fc07fc0u);
        else
          gemm::ptx::cp_async_16(dst, valid ? col + gi * ga.ld_gate : ga.gate, valid);
      }
      gemm::ptx::cp_async_commit_group();
      gemm::ptx::cp_async_wait_group<0>();
      asm volatile("bar.sync %0, 128;\n" ::"r"(1 + cw) : "memory");
    }
    RingPosition res_pos[2];
    if constexpr (kFused) {
      RingPosition r = pos;
      for (int i = 0; i < 2 * cw; ++i) r.advance<ML::kStages>();
      res_pos[0] = r;
      r.advance<ML::kStages>();
      res_pos[1] = r;
    }
    const int q8 = lane / 8, i8 = lane % 8, hh_l = q8 % 2, c = 2 * warp + hh_l;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (kFused) gemm::ptx::mbarrier_wait(&s.full[res_pos[h].stage], res_pos[h].phase);
      const unsigned char* res = kFused ? s.a[res_pos[h].stage] : nullptr;
#pragma unroll
      for (int jp = 0; jp < 10; ++jp) {
        const int y = 16 * jp + 8 * (q8 / 2) + i8;  // this lane's row address: token y, W rows chunk c
        unsigned char* out = piece(h, jp / 5) + sw128(y % 80, c);
        std::uint32_t R[4], G[4], O[4];
        if constexpr (kFused) ldmatrix_x4_trans(R, res + sw128(y, c));
        if (gated) ldmatrix_x4_trans(G, out);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float* d = &acc.v[h][4 * (2 * jp + q / 2) + 2 * (q % 2)];
          if constexpr (kFused) {
            const float g0 = gated ? bf16_lo(G[q]) : 1.f, g1 = gated ? bf16_hi(G[q]) : 1.f;
            O[q] = pack_bf16(__fmaf_rn(g0, d[0], bf16_lo(R[q])), __fmaf_rn(g1, d[1], bf16_hi(R[q])));
          } else {
            O[q] = pack_bf16(d[0], d[1]);
          }
        }
        stmatrix_x4_trans(O, out);
      }
    }
    gemm::ptx::fence_proxy_async_shared();
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + cw) : "memory");
    if (tid == 0 && 2 * pair + cw < n_tiles) {
      for (int h = 0; h < 2; ++h)
        for (int q = 0; q < 2; ++q)
          if (80 * q < rows)
            gemm::ptx::tma_store_2d(&out_map, piece(h, q), static_cast<int>(wr[cw].first[h]), static_cast<int>(m0 + 80 * q));
      gemm::ptx::bulk_commit_group();
      gemm::ptx::bulk_wait_group_read_all();
    }
    if constexpr (kFused) FusedEpi::release(fp, m0, rows, wr[cw], tid, 128);
  }
}

template <bool FusedCall>
void launch_reg(const GemmOperands<T>& op, T* y, const T* res, const GateArgs& ga, const Fused::Params& fp,
                const DeviceInfo& dev) {
  using ML = Wide160<4>;
  static CUtensorMap maps[4];
  static const void* keys[4] = {};
  static std::int64_t dims[2] = {};
  // Tensor maps made once per buffer set (the probe's calls reuse them).
  if (keys[0] != op.a || keys[1] != op.w || keys[2] != res || keys[3] != y || dims[0] != op.m || dims[1] != op.k) {
    ST(make_tensor_map_sw128(maps[0], op.a, gemm::detail::tensor_map_type<T>(), op.m, op.k, op.lda, ML::BM));
    ST(make_tensor_map_sw128(maps[1], op.w, gemm::detail::tensor_map_type<T>(), op.n, op.k, op.ldw, ML::kHalfRows));
    ST(make_tensor_map_sw128(maps[2], res != nullptr ? res : y, gemm::detail::tensor_map_type<T>(), op.m, op.n, op.n, ML::BM));
    ST(make_tensor_map_sw128(maps[3], y, gemm::detail::tensor_map_type<T>(), op.m, op.n, op.n, 80));
    keys[0] = op.a, keys[1] = op.w, keys[2] = res, keys[3] = y, dims[0] = op.m, dims[1] = op.k;
  }
  const std::int64_t n_tiles = op.n / 128;
  const TileOrder order{(op.m + ML::BM - 1) / ML::BM, (n_tiles + 1) / 2};
  if (order.count() > dev.sm_count) { std::printf("one tile a CTA only\n"); std::exit(1); }
  auto* kernel = &reg_kernel<ML, FusedCall>;
  static bool set = false;
  if (!set) { CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ML::kSmemBytes))); set = true; }
  kernel<<<unsigned(order.count()), ML::kThreads, ML::kSmemBytes>>>(maps[0], maps[1], maps[2], maps[3],
                                                                    GemmExtent{op.m, op.n, op.k}, n_tiles, order, ga, fp);
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20, samples = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::int64_t n = 5376, gate_rows = 3;
  DeviceInfo dev; ST(current_device(dev));
  float* workspace; CK(cudaMalloc(&workspace, std::size_t(dev.sm_count) * 2 * 160 * 128 * 4));
  // Bits first, on odd M too (the last tile's rows clipped; idx in runs and alternating, one out of range).
  for (std::int64_t m : {925, 901, 161, 1}) {
    for (std::int64_t k : {7168, 14336}) {
      T *a, *w, *y1, *y3, *res, *gate; std::int32_t* idx;
      CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y1, m * n * 2)); CK(cudaMalloc(&y3, m * n * 2));
      CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
      fill(w, n * k, 12345 + m, 0.02); fill(a, m * k, 777 + m, 1.0); fill(res, m * n, 99 + m, 1.0); fill(gate, gate_rows * n, 5, 0.5);
      std::vector<std::int32_t> hi(m);
      for (std::int64_t i = 0; i < m; ++i) hi[i] = k == 7168 ? int(i * 3 / m) : int(i % gate_rows);
      if (m > 100) hi[77] = 7;  // out of the table: NaN in both
      CK(cudaMemcpy(idx, hi.data(), m * 4, cudaMemcpyHostToDevice));
      GemmOperands<T> op{a, w, m, n, k, k, k};
      const KSegments one{1};
      const GateArgs ga{gate, n, idx, gate_rows}, no_gate{nullptr, 0, nullptr, 0};
      for (int variant = 0; variant < 3; ++variant) {  // fused gated, fused plain residual, bare
        Fused::Params pf({nullptr}, {Activation::identity}, {res, n, variant == 0 ? gate : nullptr, n, idx, gate_rows}, {y1, n});
        Fused::Params pf3({nullptr}, {Activation::identity}, {res, n, variant == 0 ? gate : nullptr, n, idx, gate_rows}, {y3, n});
        Bare::Params pb({nullptr}, {Activation::identity}, {y1, n});
        CK(cudaMemset(y1, 0xff, m * n * 2)); CK(cudaMemset(y3, 0xee, m * n * 2));
        if (variant < 2) {
          launch_wide160<Wide160<4>, Fused>(op, pf, one, workspace, dev);
          launch_reg<true>(op, y3, res, variant == 0 ? ga : no_gate, pf3, dev);
        } else {
          launch_wide160<Wide160<4>, Bare>(op, pb, one, workspace, dev);
          launch_reg<false>(op, y3, nullptr, no_gate, pf3, dev);
        }
        CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
        std::vector<unsigned short> h1(m * n), h3(m * n);
        CK(cudaMemcpy(h1.data(), y1, m * n * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h3.data(), y3, m * n * 2, cudaMemcpyDeviceToHost));
        std::int64_t differ = 0, first = -1;
        for (std::int64_t i = 0; i < m * n; ++i) if (h1[i] != h3[i]) { if (first < 0) first = i; ++differ; }
        std::printf("bits m=%lld k=%lld %s: %s", (long long)m, (long long)k, variant == 0 ? "gated" : variant == 1 ? "residual" : "bare",
                    differ == 0 ? "bits equal\n" : "BITS DIFFER");
        if (differ) std::printf(" (%lld of %lld; first at row %lld col %lld: %04x vs %04x)\n", (long long)differ, (long long)(m * n),
                                (long long)(first / n), (long long)(first % n), h1[first], h3[first]);
      }
      cudaFree(a); cudaFree(w); cudaFree(y1); cudaFree(y3); cudaFree(res); cudaFree(gate); cudaFree(idx);
    }
  }
  if (samples < 1) return 0;  // bits only (compute-sanitizer runs)
  const std::int64_t m = argc > 3 ? std::atoll(argv[3]) : 925;
  for (std::int64_t k : {7168, 14336}) {
    T *a, *w, *y, *y2, *y3, *res, *gate; std::int32_t* idx;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&w, n * k * 2)); CK(cudaMalloc(&y, m * n * 2)); CK(cudaMalloc(&y2, m * n * 2));
    CK(cudaMalloc(&y3, m * n * 2));
    CK(cudaMalloc(&res, m * n * 2)); CK(cudaMalloc(&gate, gate_rows * n * 2)); CK(cudaMalloc(&idx, m * 4));
    fill(w, n * k, 12345, 0.02); fill(a, m * k, 777, 1.0); fill(res, m * n, 99, 1.0); fill(gate, gate_rows * n, 5, 0.5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i % gate_rows); CK(cudaMemcpy(idx, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    GemmOperands<T> op{a, w, m, n, k, k, k};
    const KSegments one{1};
    const GateArgs ga{gate, n, idx, gate_rows}, no_gate{nullptr, 0, nullptr, 0};
    Fused::Params pf({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y, n});
    Fused::Params pf3({nullptr}, {Activation::identity}, {res, n, gate, n, idx, gate_rows}, {y3, n});
    Bare::Params pb({nullptr}, {Activation::identity}, {y, n});
    Bare::Params pb3({nullptr}, {Activation::identity}, {y3, n});
    baseline::CublasLtGemm lt(DType::bf16, m, n, k);
#ifdef PROBE56B
    // The library (built on the headers of the fifty-sixth session's change): its automatic choice,
    // out of place as above, in place, and as the layer report calls it (the gate a chunk of a
    // [3, 6n] table, the indices in three runs).
    T *x, *table; std::int32_t* idx_runs;
    CK(cudaMalloc(&x, m * n * 2)); CK(cudaMalloc(&table, gate_rows * 6 * n * 2)); CK(cudaMalloc(&idx_runs, m * 4));
    CK(cudaMemcpy(x, res, m * n * 2, cudaMemcpyDeviceToDevice)); fill(table, gate_rows * 6 * n, 6, 0.5);
    { std::vector<std::int32_t> h(m); for (std::int64_t i = 0; i < m; ++i) h[i] = int(i * gate_rows / m); CK(cudaMemcpy(idx_runs, h.data(), m * 4, cudaMemcpyHostToDevice)); }
    Fused::Params p_inplace({nullptr}, {Activation::identity}, {x, n, gate, n, idx, gate_rows}, {x, n});
    Fused::Params p_report({nullptr}, {Activation::identity}, {x, n, table + 2 * n, 6 * n, idx_runs, gate_rows}, {x, n});
    {  // bits: the library's call against the probe's kernel
      CK(cudaMemset(y3, 0xee, m * n * 2)); launch_reg<true>(op, y3, res, ga, pf3, dev);
      ST((launch_gemm<T, Fused>(op, pf, dev, nullptr)));
      CK(cudaDeviceSynchronize());
      std::vector<unsigned short> h1(m * n), h3(m * n);
      CK(cudaMemcpy(h1.data(), y, m * n * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h3.data(), y3, m * n * 2, cudaMemcpyDeviceToHost));
      std::printf("bits k=%lld library fused vs probe kernel: %s\n", (long long)k, h1 == h3 ? "bits equal" : "BITS DIFFER");
    }
#endif
    std::vector<Variant> vs = {
#ifdef PROBE56B
      {"lib fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"lib fused in place", [&] { ST((launch_gemm<T, Fused>(op, p_inplace, dev, nullptr))); }},
      {"lib fused report", [&] { ST((launch_gemm<T, Fused>(op, p_report, dev, nullptr))); }},
      {"lib bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
#else
      {"HEAD fused", [&] { ST((launch_gemm<T, Fused>(op, pf, dev, nullptr))); }},
      {"HEAD bare", [&] { ST((launch_gemm<T, Bare>(op, pb, dev, nullptr))); }},
#endif
      {"256x160 node fused", [&] { launch_wide160<Wide160<4>, Fused>(op, pf3, one, workspace, dev); }},
      {"256x160 node bare", [&] { launch_wide160<Wide160<4>, Bare>(op, pb3, one, workspace, dev); }},
      {"256x160 reg fused", [&] { launch_reg<true>(op, y3, res, ga, pf3, dev); }},
      {"256x160 reg bare", [&] { launch_reg<false>(op, y3, nullptr, no_gate, pf3, dev); }},
      {"cublaslt bare", [&] { lt.run(a, w, y2); }},
      {"cublaslt+epi", [&] { lt.run(a, w, y2); layer_report::kernels::gated_residual<<<264, 256>>>(y2, gate, idx, res, m, n); }},
    };
    time_interleaved(vs, calls, samples, (long long)m, (long long)k);
    cudaFree(a); cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(y3); cudaFree(res); cudaFree(gate); cudaFree(idx);
#ifdef PROBE56B
    cudaFree(x); cudaFree(table); cudaFree(idx_runs);
#endif
  }
  return 0;
}
