#!/usr/bin/env bash
# Session 12, call 3 (e3): ncu of the bare 128 x 256 kernel (e1's build, light pairs off = the
# landed code) at 1024 and 925 tokens (qkv_proj), and of out_proj's bare kernel at 70 tokens:
# what bounds a tile (tensor pipe, L2, shared memory), and the 70-token stream.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fusekit_bench_gemm_e1.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* 2>/dev/null
export LD_LIBRARY_PATH=$d FUSEKIT_LIGHT_PAIRS=off
o=$OUT/${CALL:-e3}; mkdir -p $o
SECONDS=0
prof() { # name tokens filter
  FUSEKIT_GEMM_TOKENS=$2 timeout 120 ncu --clock-control none -k regex:gemm_kernel_sm90 --launch-count 1 --set full -o $o/ncu_$1 \
    $d/fusekit_bench_gemm_e1 --require-gpu --skip-ceilings --benchmark_filter="$3" > $o/ncu_$1.log 2>&1
  echo "ncu $1 rc=$? t=$SECONDS"
  ncu -i $o/ncu_$1.ncu-rep --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --section Occupancy 2>&1 | grep -E "Duration|Throughput|Pipe|Busy|Hit Rate|Bandwidth|Peak|Issue|Executed Ipc" | head -40 | tee $o/ncu_$1_summary.txt
  ncu -i $o/ncu_$1.ncu-rep --page raw --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_gmma.sum,lts__t_bytes.sum.per_second,dram__bytes.sum.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warp_issue_stalled_barrier_per_warp_active.pct 2>&1 | grep -E "sm__pipe|gmma|lts__t_bytes|dram__bytes|wavefronts|stalled" | tee -a $o/ncu_$1_summary.txt
}
prof qkv1024_bare 1024 'qkv_proj/bf16/tokens=1024/fusekit_bare/gpu_throughput'
prof qkv925_bare 925 'qkv_proj/bf16/tokens=925/fusekit_bare/gpu_throughput'
prof outproj70_bare 70 'out_proj/bf16/tokens=70/fusekit_bare/gpu_throughput'
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e3}.tgz ${CALL:-e3}
