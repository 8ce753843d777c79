#!/usr/bin/env bash
# Session 25 call 1: where the 925/4096-token GEMMs lose to cuBLASLt (ncu sections, bare kernels).
set -u
d=$(cd "$(dirname "$0")" && pwd); b=$d/base
chmod +x $b/*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $o/smi.txt
ncu --query-metrics > $o/metrics.txt 2>&1
prof() { # name tokens linear impl
  FUSEKIT_GEMM_TOKENS=$2 timeout 150 ncu --graph-profiling node --clock-control none -k 'regex:gemm_kernel|nvjet' --launch-skip 4 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    --metrics sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__pcsamp_warps_issue_stalled_wait.sum \
    $b/fusekit_bench_gemm --require-gpu --skip-ceilings \
    --benchmark_filter="gemm/$3/bf16/tokens=$2/$4/gpu_throughput" > $o/ncu_$1.txt 2>&1
  echo "$1 rc=$? t=$SECONDS"
}
prof outproj925_bare 925 out_proj fusekit_bare
prof outproj925_cublas 925 out_proj cublaslt
prof fc1_925_bare 925 fc1 fusekit_bare
prof fc1_925_cublas 925 fc1 cublaslt
prof qkv4096_bare 4096 qkv_proj fusekit_bare
prof qkv4096_cublas 4096 qkv_proj cublaslt
prof fc1_4096_bare 4096 fc1 fusekit_bare
prof fc1_4096_cublas 4096 fc1 cublaslt
cuobjdump -sass $b/fusekit_bench_gemm > $o/all.sass 2>/dev/null; echo "sass rc=$? $(wc -c < $o/all.sass)"
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
