// fusekit/reduce/dispatch.cuh: picks the row layout for (N, dtype) and launches the kernel.
// Arguments are validated before this layer is reached (reduce/options.hpp).
#pragma once

#include "fusekit/core/device.hpp"
#include "fusekit/core/launch.cuh"
#include "fusekit/core/status.hpp"
#include "fusekit/reduce/row_kernel.cuh"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <type_traits>
#include <vector>

namespace fusekit::reduce {

// Rows per CTA for the short-row shapes: about 256 threads per CTA, fewer when the matrix has too
// few rows to give every SM two CTAs. Only the grouping of rows changes, never a row's arithmetic.
inline int rows_per_cta(const RowConfig& cfg, std::int64_t rows, int sm_count) {
  int per = cfg.threads_per_row >= 256 ? 1 : 256 / cfg.threads_per_row;
  const int min_per = cfg.threads_per_row < 32 ? 32 / cfg.threads_per_row : 1;  // whole warps
  while (per > min_per && (rows + per - 1) / per < 2 * std::int64_t(sm_count)) per /= 2;
  return per;
}

// The staged kernel copies a row and its residual row with the same 16-byte alignment; a residual
// laid out differently takes the register kernels. Decided from the pointers' and strides'
// residues only, so a row alone and the same row inside a call decide alike.
inline bool residual_stages_alike(const RowParams& p, std::size_t elem) {
  if (!p.residual) return true;
  const auto in = reinterpret_cast<std::uintptr_t>(p.in), res = reinterpret_cast<std::uintptr_t>(p.residual);
  return (in - res) % 16 == 0 && (std::uint64_t(p.in_stride - p.residual_stride) * elem) % 16 == 0;
}

// Whether cluster launches overlap the kernel before them (PDL): never, only grids of at most one
// CTA per SM (one wave), or always (the default: 1.01x-1.03x on every cluster row of the bandwidth
// sweep, one wave or four, against never; benchmark/RESULTS.md, seventeenth session). Process-wide,
// for benchmark sweeps and the tests.
enum class ClusterOverlap : std::uint8_t { never, one_wave, always };
inline std::atomic<ClusterOverlap>& cluster_overlap() {
  static std::atomic<ClusterOverlap> overlap{ClusterOverlap::always};
  return overlap;
}

// Process-wide slice size of the sliced rows, for benchmark sweeps (0: slice_bytes_for the row;
// else clamped to 16-64 KB). It picks the cluster, so the bits change with it.
inline std::atomic<int>& slice_bytes() {
  static std::atomic<int> bytes{0};
  return bytes;
}

// Process-wide vectors a thread of the sliced rows, for benchmark sweeps (0: the default for the
// op and dtype, sliced_vectors_per_thread; else clamped to 1-16, up to kMaxSlicedThreads threads).
// It picks the threads, so the bits change with it.
inline std::atomic<int>& slice_vectors_per_thread() {
  static std::atomic<int> vectors{0};
  return vectors;
}

// Whether the row kernels of this binary were compiled for sm_90 on the current device (a GPU of
// compute capability 9.0 or newer): the cluster and staged kernels, and the wait that makes a
// PDL launch safe, are compiled out below it (compiled_for_sm90). Once per device.
template <class Policy, class TIn, class TOut> Status sm90_row_kernels(const DeviceInfo& device, bool& yes) {
  yes = false;
  if (device.major < 9) return {};
  static std::array<std::atomic<signed char>, 64> known{};  // 0: not asked yet, 1: yes, -1: no
  const bool tracked = device.ordinal >= 0 && device.ordinal < 64;
  if (tracked && known[device.ordinal].load(std::memory_order_relaxed) != 0) {
    yes = known[device.ordinal].load(std::memory_order_relaxed) > 0;
    return {};
  }
  cudaFuncAttributes attr{};
  FUSEKIT_CUDA_TRY(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&row_cluster_kernel<Policy, TIn, TOut>)));
  yes = compiled_for_sm90(attr);
  if (tracked) known[device.ordinal].store(yes ? 1 : -1, std::memory_order_relaxed);
  return {};
}

// Stages beyond 48 KB and clusters of 16 ("non-portable") need an opt-in, once per kernel and device.
template <class Policy, class TIn, class TOut, bool kSliced, bool kNarrow = false>
Status opt_in_staged(const DeviceInfo& device) {
  auto kernel = staged_row_kernel<Policy, TIn, TOut, kSliced, kNarrow>;
  static PerDeviceOnce opt_in;
  const cudaError_t e = opt_in.run(device.ordinal, [&] {
    // Sliced rows may stage their parameters too (stages_params): up to what the device allows
    // beside the kernel's static shared memory (the opt-in limit counts both).
    int stage_limit = kMaxStagedStageBytes;
    if constexpr (kSliced) {
      cudaFuncAttributes attr{};
      if (const cudaError_t e = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)); e != cudaSuccess) return e;
      stage_limit = device.max_smem_per_block_optin - int(attr.sharedSizeBytes);
    }
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         std::min(stage_limit, device.max_smem_per_block_optin));
    if (kSliced && e == cudaSuccess) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return e;
  });
  return e == cudaSuccess ? Status{} : Status::cuda(e, "cudaFuncSetAttribute (staged row kernel)");
}

template <class Policy, class TIn, class TOut, bool kSliced, bool kNarrow = false>
Status launch_staged(const RowParams& p, const StagedLayout& layout, const DeviceInfo& device, cudaStream_t stream) {
  FUSEKIT_TRY((opt_in_staged<Policy, TIn, TOut, kSliced, kNarrow>(device)));
  LaunchShape shape;
  const ClusterOverlap overlap = cluster_overlap().load();
  shape.dependent = !kSliced || overlap == ClusterOverlap::always ||
                    (overlap == ClusterOverlap::one_wave && p.rows * layout.cluster <= device.sm_count);
  shape.block = dim3(unsigned(layout.threads));
  shape.grid = dim3(unsigned(p.rows * layout.cluster));
  shape.cluster = unsigned(layout.cluster);
  shape.smem = std::size_t(layout.stage_bytes);
  return launch_kernel(staged_row_kernel<Policy, TIn, TOut, kSliced, kNarrow>, shape, stream, p, layout);
}

// Calls `f(std::bool_constant<kNarrow>{})` for a sliced kernel: the narrow one where asked (compiled
// for 16-bit rows only; the plan asks it only of layouts that takes_narrow_slices), else the one of
// up to 1024 threads.
template <class TIn, class F> Status with_sliced_kernel(bool narrow, F&& f) {
  if constexpr (sizeof(TIn) == 2)
    if (narrow) return f(std::true_type{});
  return f(std::false_type{});
}

// Which kernel takes the sliced layouts that the narrow one can run: the narrow one where it saves
// a wave (automatic), or always one of them. The same arithmetic, so the same bits. Process-wide,
// for the tests and benchmark sweeps.
enum class SlicedKernel : std::uint8_t { automatic, wide, narrow };
inline std::atomic<SlicedKernel>& sliced_kernel() {
  static std::atomic<SlicedKernel> choice{SlicedKernel::automatic};
  return choice;
}

// How many clusters of a sliced layout the device runs at once (cudaOccupancyMaxActiveClusters for
// the narrow or the wide kernel), remembered per device, layout and kernel. Its shape in the plan: a
// plan made without the device's kernels (the CPU tests) passes none.
using HeldClusters = Status (*)(const StagedLayout&, bool narrow, const DeviceInfo&, int& clusters);
template <class Policy, class TIn, class TOut>
Status sliced_clusters_held(const StagedLayout& l, bool narrow, const DeviceInfo& device, int& clusters) {
  narrow = narrow && takes_narrow_slices(l, dtype_v<TIn>);
  struct Known {
    int ordinal, stage_bytes, threads, cluster;
    bool narrow;
    int clusters;
  };
  static std::mutex mutex;
  static std::vector<Known> known;  // a few layouts a program; past 64, asked every call
  const auto same = [&](const Known& k) {
    return k.ordinal == device.ordinal && k.stage_bytes == l.stage_bytes && k.threads == l.threads &&
           k.cluster == l.cluster && k.narrow == narrow;
  };
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = std::find_if(known.begin(), known.end(), same); it != known.end()) {
    clusters = it->clusters;
    return {};
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(l.cluster));
  config.blockDim = dim3(unsigned(l.threads));
  config.dynamicSmemBytes = std::size_t(l.stage_bytes);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(l.cluster);
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  FUSEKIT_TRY(with_sliced_kernel<TIn>(narrow, [&](auto narrow_kernel) {
    constexpr bool kNarrow = decltype(narrow_kernel)::value;
    FUSEKIT_TRY((opt_in_staged<Policy, TIn, TOut, true, kNarrow>(device)));  // the query counts the opted-in stage
    FUSEKIT_CUDA_TRY(
        cudaOccupancyMaxActiveClusters(&clusters, staged_row_kernel<Policy, TIn, TOut, true, kNarrow>, &config));
    return Status{};
  }));
  if (known.size() < 64) known.push_back({device.ordinal, l.stage_bytes, l.threads, l.cluster, narrow, clusters});
  return {};
}

// Whether a sliced call stages its weight and bias beside the row (StagedLayout::params_offset):
// automatically for 16-bit rows where the device runs every cluster of the call at once with the
// parameters staged (one wave: the call is latency-bound, and the write loop otherwise waits on L1 or
// L2 for each vector's parameters in turn; f32 rows, and calls that staging would split into two
// waves, ran slower staged: RESULTS.md, thirty-ninth and forty-sixth sessions), or never, or always
// where it can (vector-aligned calls with parameters, and the stage fits). The same values are read
// either way, so the bits do not change. Process-wide, for the tests and benchmark sweeps.
enum class SlicedParams : std::uint8_t { automatic, never, always };
inline std::atomic<SlicedParams>& sliced_params() {
  static std::atomic<SlicedParams> choice{SlicedParams::automatic};
  return choice;
}
// `held`: how many clusters of the staged layout (with_staged_params) the device runs at once
// (sliced_clusters_held), or -1 where not known, and then as many as fill the SMs with one CTA each.
// The staged parameters take shared memory, so fewer CTAs an SM, and 16-CTA clusters pack into the
// GPCs unevenly (H100, LayerNorm bf16 N = 262144 with a residual: 128 KB a CTA, 7 clusters at once
// where 132 / 16 would say 8; RMSNorm's 64 KB a CTA: 21, where the rule by SMs stopped at 8).
inline constexpr int kAllClustersHeld = 1 << 30;
inline bool stages_params(const RowParams& p, DType in, const StagedLayout& l, int params, const DeviceInfo& device,
                          int held = -1) {
  if (!p.vectors_aligned || (!p.weight && !p.bias)) return false;
  // The opt-in limit counts the kernel's static shared memory too (its barriers, the reducer's and
  // the cluster exchange's slots), with some alignment slack.
  constexpr int kStaticBytes = int(sizeof(ReducerStorage) + sizeof(ClusterExchange)) + 256;
  if (l.stage_bytes + params * l.residual_offset + kStaticBytes > device.max_smem_per_block_optin) return false;
  const SlicedParams choice = sliced_params().load();
  if (choice != SlicedParams::automatic) return choice == SlicedParams::always;
  if (dtype_size(in) != 2) return false;
  return held >= 0 ? p.rows <= held : p.rows * l.cluster <= device.sm_count;
}

// Process-wide override of the kernel choice, for tests that compare both kernels bit for bit and
// for benchmarks. `registers` on rows the register kernels split over a cluster changes the bits.
enum class RowKernel : std::uint8_t { automatic, registers, staged };
inline std::atomic<RowKernel>& row_kernel_choice() {
  static std::atomic<RowKernel> choice{RowKernel::automatic};
  return choice;
}

// Which staged kernel takes the call, if any: one CTA a row (rows that fit a stage, where
// staged_is_faster says so), or slices over a cluster (rows no stage holds, which the register
// kernels would split over a cluster anyway: RESULTS.md, eighteenth session).
enum class Staging : std::uint8_t { none, row, slices };
inline Staging staging_for(const RowParams& p, DType in, std::size_t elem, bool has_epilogue, bool sm90) {
  const bool residual = p.residual != nullptr;
  if (!sm90 || !residual_stages_alike(p, elem)) return Staging::none;
  const RowKernel choice = row_kernel_choice().load();
  if (choice == RowKernel::registers) return Staging::none;
  if (staged_fits(p.cols, in, residual))
    return choice == RowKernel::staged || staged_is_faster(p.cols, in, has_epilogue) ? Staging::row : Staging::none;
  return sliced_fits(p.cols, in, residual) ? Staging::slices : Staging::none;
}

// Process-wide choice for the rows the phased kernels may take (16-bit rows off their alignment,
// parameters aligned): the general kernels (off), the phased ones (on), or the phased ones with
// their parameter lines prefetched into L1 with the row (prefetch; a FUSEKIT_ROW_PHASED_HOLDS
// build ignores it: its kernels load the parameters with the row). For benchmark sweeps and the
// tests, which compare the ways bit for bit.
enum class PhasedRows : std::uint8_t { off, on, prefetch };
inline std::atomic<PhasedRows>& phased_rows() {
  static std::atomic<PhasedRows> choice{PhasedRows::on};
  return choice;
}

// Process-wide vectors a thread of the register kernels' rows that one CTA holds, for benchmark
// sweeps of the layout (0: select_row_config's; 2, 4 or 8: row_config_with_chunks). It picks the
// layout, so the bits change with it; the staged kernels keep the default layout.
inline std::atomic<int>& row_vectors_per_thread() {
  static std::atomic<int> vectors{0};
  return vectors;
}

// Whether a call's rows get helpers (RowAgent's kHelped; a process-wide choice, for the benchmark's
// sweeps): where each row has a CTA to itself and the CTAs fit on the SMs at once, so a row's time
// is one warp's chain of instructions. Compiled for 16-bit rows in two chunks of at most 128
// threads (the seed's 37 x 1537 shapes), on the aligned and phased kernels.
inline std::atomic<bool>& row_write_helpers() {
  static std::atomic<bool> on{true};
  return on;
}
inline bool takes_helpers(DType in, const RowConfig& cfg, std::int64_t rows, int per_cta, int sm_count) {
  return dtype_size(in) == 2 && cfg.shape == RowShape::warps && 2 * cfg.threads_per_row <= max_threads_of(RowShape::warps) &&
         per_cta == 1 && rows <= sm_count && row_write_helpers().load();
}

// Process-wide: which kernels of warp rows, several a CTA, share their parameter vectors through
// shared memory: none, the phased ones only (their CTAs take rows of one phase, CtaRows::one_phase),
// or the aligned ones too (CtaRows::sharing, in place of registers). The same bits either way. For
// the tests and benchmark sweeps. (CTAs of one row staging their parameters so ran 0.84-0.97x:
// H100, forty-third session.)
enum class ParamSharing : std::uint8_t { none, phased, all };
inline std::atomic<ParamSharing>& row_param_sharing() {
  static std::atomic<ParamSharing> choice{ParamSharing::all};
  return choice;
}

// What a call runs, decided on the host from the call, the device and the process-wide choices
// above alone, with no device work: launch_rows launches exactly this, and the tests ask it which
// kernel a shape reaches, so that a case meant to cover a kernel fails if the shape stops reaching it.
struct RowPlan {
  Staging staging = Staging::none;  // row or slices: the staged kernel, with `staged`'s layout
  StagedLayout staged{};
  bool narrow_slices = false;       // slices: the kernel compiled for five CTAs an SM, where it saves a wave
  RowConfig config{};               // the register kernels' layout (and their clusters')
  int rows_per_cta = 1;             // the register kernels' blockDim.y (clusters: 1)
  RowAlignment alignment = RowAlignment::general;
  CtaRows cta_rows = CtaRows::independent;
  bool prefetch_params = false;     // phased kernels: RowParams::prefetch_params
};

// The plan in a few words, e.g. "phased warps, 128 threads x 2 vectors, 2 rows a CTA, one_phase"
// (the benchmark's label for each case).
inline std::string describe(const RowPlan& plan) {
  const auto n = [](int v) { return std::to_string(v); };
  if (plan.staging != Staging::none) {
    std::string d = plan.staging == Staging::row ? "staged row, " + n(plan.staged.threads) + " threads"
                                                 : "staged slices, cluster of " + n(plan.staged.cluster) + " x " +
                                                       n(plan.staged.threads) + " threads";
    if (plan.narrow_slices) d += ", 5 CTAs an SM";
    return plan.staged.params_offset > 0 ? d + ", parameters staged" : d;
  }
  const RowConfig& c = plan.config;
  if (c.shape == RowShape::cluster)
    return "registers, cluster of " + n(c.cluster) + " x " + n(c.threads_per_row) + " threads x " + n(c.chunks()) + " vectors";
  static constexpr const char* kShapes[] = {"sub_warp", "warps", "block", "wide"};
  static constexpr const char* kAlignments[] = {"general", "phased", "aligned"};
  static constexpr const char* kCtaRows[] = {"independent", "helped", "one_phase", "sharing"};
  const char* rows = plan.rows_per_cta == 1 ? " row a CTA, " : " rows a CTA, ";
  return std::string(kAlignments[int(plan.alignment)]) + " " + kShapes[int(c.shape)] + ", " + n(c.threads_per_row) +
         " threads x " + n(c.chunks()) + " vectors, " + n(plan.rows_per_cta) + rows + kCtaRows[int(plan.cta_rows)];
}

// sm90: the binary's row kernels are sm_90 code on this device (sm90_row_kernels). held_clusters:
// the device's answer for a sliced layout (sliced_clusters_held), or none (stages_params then goes
// by the SM count alone). Fails where the rows need clusters and sm90 is false, or the device
// cannot answer.
template <class Policy>
Status plan_rows(const RowParams& p, DType in, const DeviceInfo& device, bool sm90, RowPlan& plan,
                 HeldClusters held_clusters = nullptr) {
  plan = RowPlan{};
  constexpr bool kEpilogue = kHasEpilogue<Policy>;
  const bool residual = p.residual != nullptr;
  plan.staging = staging_for(p, in, dtype_size(in), kEpilogue, sm90);
  if (plan.staging == Staging::row) {
    plan.staged = select_staged_layout(p.cols, in, residual);
    return {};
  }
  if (plan.staging == Staging::slices) {
    const int asked = slice_vectors_per_thread();
    const int per_thread = asked > 0 ? asked : sliced_vectors_per_thread(in, kEpilogue);
    plan.staged = select_sliced_layout(p.cols, in, residual, slice_bytes(), per_thread);
    constexpr int kParams = Policy::kTakesBias ? 2 : Policy::kTakesWeight ? 1 : 0;
    if (kParams > 0 && stages_params(p, in, plan.staged, kParams, device, kAllClustersHeld)) {
      const StagedLayout staged = with_staged_params(plan.staged, kParams);
      int held = -1;
      if (held_clusters) FUSEKIT_TRY(held_clusters(staged, false, device, held));
      if (stages_params(p, in, plan.staged, kParams, device, held)) plan.staged = staged;
    }
    // A GPU with less shared memory a CTA than the slice needs (sm_90 has 227 KB) keeps the
    // register clusters.
    if (plan.staged.stage_bytes <= device.max_smem_per_block_optin) {
      if (takes_narrow_slices(plan.staged, in)) {
        const SlicedKernel asked = sliced_kernel().load();
        if (asked == SlicedKernel::narrow) {
          plan.narrow_slices = true;
        } else if (asked == SlicedKernel::automatic && held_clusters) {  // unknown: the wide kernel
          int wide = -1, narrow = -1;
          FUSEKIT_TRY(held_clusters(plan.staged, false, device, wide));
          FUSEKIT_TRY(held_clusters(plan.staged, true, device, narrow));
          plan.narrow_slices = narrow_saves_waves(p.rows, wide, narrow);
        }
      }
      return {};
    }
    plan.staging = Staging::none;
    plan.staged = {};
  }
  const int chunks = row_vectors_per_thread();
  plan.config = chunks ? row_config_with_chunks(p.cols, in, chunks) : select_row_config(p.cols, in);
  if (plan.config.shape == RowShape::cluster) {
    if (!sm90)
      return {Errc::unsupported_device,
              std::string(Policy::kName) + ": rows of " + std::to_string(p.cols) +
                  " elements need thread-block clusters: an sm_90 or newer GPU, and code built for it in this "
                  "binary (e.g. -gencode=arch=compute_90a,code=sm_90a)"};
    return {};
  }
  plan.rows_per_cta = rows_per_cta(plan.config, p.rows, device.sm_count);
  // The phased kernels exist for 16-bit rows with an epilogue only (the rows whose aligned kernels
  // hold their parameters: RowAgent::kHoldsParams).
  const PhasedRows phased = phased_rows().load();
  if (p.vectors_aligned) {
    plan.alignment = RowAlignment::aligned;
  } else if (dtype_size(in) == 2 && kEpilogue && p.params_aligned && phased != PhasedRows::off) {
    plan.alignment = RowAlignment::phased;
    plan.prefetch_params = phased == PhasedRows::prefetch;
  }
  if (plan.alignment == RowAlignment::general) return {};
  // Helpers are compiled for the aligned and phased kernels of 16-bit warp rows (takes_helpers).
  if (takes_helpers(in, plan.config, p.rows, plan.rows_per_cta, device.sm_count)) {
    plan.cta_rows = CtaRows::helped;
    return {};
  }
  // A kernel of several warp rows a CTA with parameters shares them (a phased one takes rows of
  // one phase). (rows_per_cta gives powers of two: RowAgent::share_params deals the reads by per - 1.)
  const int per = plan.rows_per_cta;
  const ParamSharing sharing = row_param_sharing().load();
  if (can_share_params(kEpilogue, plan.config.shape, dtype_size(in), plan.alignment) && per > 1 && (per & (per - 1)) == 0 &&
      (p.weight || p.bias) && sharing != ParamSharing::none) {
    if (plan.alignment == RowAlignment::phased) plan.cta_rows = CtaRows::one_phase;
    else if (sharing != ParamSharing::phased) plan.cta_rows = CtaRows::sharing;
  }
  return {};
}

// The register kernel of the plan's alignment and CTA rows, for one shape. Only the kernels a plan
// can name are instantiated (helpers: 16-bit warp rows, aligned or phased; sharing: can_share_params).
template <class Policy, class TIn, class TOut, RowShape kShape, RowAlignment kAlign>
Status launch_planned(const RowParams& p, const RowPlan& plan, LaunchShape shape, cudaStream_t stream) {
  using Agent = RowAgent<Policy, TIn, TOut, kShape, kAlign>;
  switch (plan.cta_rows) {
    case CtaRows::independent:
      return launch_kernel(row_kernel<Policy, TIn, TOut, kShape, kAlign>, shape, stream, p, plan.config.vectors);
    case CtaRows::helped:
      if constexpr (kShape == RowShape::warps && sizeof(TIn) == 2 && kAlign != RowAlignment::general) {
        shape.block.y = 2;  // one row a CTA (rows_per_cta 1): the second group helps it
        return launch_kernel(row_kernel<Policy, TIn, TOut, kShape, kAlign, CtaRows::helped>, shape, stream, p,
                             plan.config.vectors);
      }
      break;
    case CtaRows::one_phase:
      if constexpr (Agent::kCanShareParams && kAlign == RowAlignment::phased) {
        shape.grid = dim3(unsigned(one_phase_ctas(p.rows, plan.rows_per_cta)));
        return launch_kernel(row_kernel<Policy, TIn, TOut, kShape, kAlign, CtaRows::one_phase>, shape, stream, p,
                             plan.config.vectors);
      }
      break;
    case CtaRows::sharing:
      if constexpr (Agent::kCanShareParams && kAlign == RowAlignment::aligned)
        return launch_kernel(row_kernel<Policy, TIn, TOut, kShape, kAlign, CtaRows::sharing>, shape, stream, p,
                             plan.config.vectors);
      break;
  }
  return {Errc::bad_argument, std::string(Policy::kName) + ": internal: the plan names a row kernel this build lacks"};
}

template <class Policy, class TIn, class TOut, RowShape kShape>
Status launch_row_kernel(const RowParams& p, const RowPlan& plan, const LaunchShape& shape, cudaStream_t stream) {
  switch (plan.alignment) {
    case RowAlignment::aligned: return launch_planned<Policy, TIn, TOut, kShape, RowAlignment::aligned>(p, plan, shape, stream);
    case RowAlignment::phased:
      if constexpr (sizeof(TIn) == 2 && kHasEpilogue<Policy>) {
        RowParams q = p;
        q.prefetch_params = plan.prefetch_params;
        return launch_planned<Policy, TIn, TOut, kShape, RowAlignment::phased>(q, plan, shape, stream);
      }
      break;
    case RowAlignment::general: return launch_planned<Policy, TIn, TOut, kShape, RowAlignment::general>(p, plan, shape, stream);
  }
  return {Errc::bad_argument, std::string(Policy::kName) + ": internal: the plan names a row kernel this build lacks"};
}

// The plan of a call on the current device, as launch_rows<Policy, TIn, TOut> makes it (the
// benchmark labels its cases with it); `device` and `sm90` receive what it was planned for.
template <class Policy, class TIn, class TOut>
Status plan_on_device(const RowParams& p, RowPlan& plan, DeviceInfo& device, bool& sm90) {
  FUSEKIT_TRY(current_device(device));
  FUSEKIT_TRY((sm90_row_kernels<Policy, TIn, TOut>(device, sm90)));
  return plan_rows<Policy>(p, dtype_v<TIn>, device, sm90, plan, sm90 ? &sliced_clusters_held<Policy, TIn, TOut> : nullptr);
}

template <class Policy, class TIn, class TOut>
Status launch_rows(const RowParams& p, cudaStream_t stream) {
  if (p.rows == 0 || p.cols == 0) return {};
  DeviceInfo device;
  bool sm90 = false;
  RowPlan plan;
  FUSEKIT_TRY((plan_on_device<Policy, TIn, TOut>(p, plan, device, sm90)));
  if (plan.staging == Staging::row) return launch_staged<Policy, TIn, TOut, false>(p, plan.staged, device, stream);
  if (plan.staging == Staging::slices)
    return with_sliced_kernel<TIn>(plan.narrow_slices, [&](auto narrow) {
      return launch_staged<Policy, TIn, TOut, true, decltype(narrow)::value>(p, plan.staged, device, stream);
    });

  const RowConfig& cfg = plan.config;
  LaunchShape shape;
  if (cfg.shape == RowShape::cluster) {
    auto kernel = row_cluster_kernel<Policy, TIn, TOut>;
    // Clusters of 16 are "non-portable" and need an opt-in once per kernel and device.
    static PerDeviceOnce opt_in;
    const cudaError_t opt_in_error = opt_in.run(device.ordinal, [&] {
      return cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    });
    if (opt_in_error != cudaSuccess) return Status::cuda(opt_in_error, "cudaFuncSetAttribute(NonPortableClusterSize)");
    shape.grid = dim3(unsigned(p.rows * cfg.cluster));
    shape.block = dim3(unsigned(cfg.threads_per_row));
    shape.cluster = unsigned(cfg.cluster);
    const ClusterOverlap overlap = cluster_overlap().load();
    shape.dependent = overlap == ClusterOverlap::always ||
                      (overlap == ClusterOverlap::one_wave && p.rows * cfg.cluster <= device.sm_count);
    return launch_kernel(kernel, shape, stream, p, (cfg.vectors + cfg.cluster - 1) / cfg.cluster);
  }

  shape.dependent = sm90;  // the kernels wait for the grid before them only in sm_90 code
  shape.block = dim3(unsigned(cfg.threads_per_row), unsigned(plan.rows_per_cta));
  shape.grid = dim3(unsigned((p.rows + plan.rows_per_cta - 1) / plan.rows_per_cta));
  switch (cfg.shape) {
    case RowShape::sub_warp: return launch_row_kernel<Policy, TIn, TOut, RowShape::sub_warp>(p, plan, shape, stream);
    case RowShape::warps: return launch_row_kernel<Policy, TIn, TOut, RowShape::warps>(p, plan, shape, stream);
    case RowShape::block: return launch_row_kernel<Policy, TIn, TOut, RowShape::block>(p, plan, shape, stream);
    default: return launch_row_kernel<Policy, TIn, TOut, RowShape::wide>(p, plan, shape, stream);
  }
}

}  // namespace fusekit::reduce
