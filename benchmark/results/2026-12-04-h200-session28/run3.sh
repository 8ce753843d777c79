#!/usr/bin/env bash
# Session 28 call 3: fc1's pairs at 925 tokens. new2 = pairs made in registers, handed to the
# epilogue warps (Bias fixed); expB = the same pairs staged and finished by the consumers (no
# hand-off); head = 12bb3d6. GEMM suite + sanitizers on new2's GLU tests, fc1 medians
# alternating, ncu of the fc1 kernels (new2, expB, head).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/new2/*.xz "$d"/expB/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/new2/* $d/expB/*; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/new2/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
cases='linear_glu:*,fc1_swiglu: the tiny*'
for tool in memcheck synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T -tc="$cases" > $o/$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/$tool.log
done
b() { case $1 in head*) echo $d/head/fusekit_bench_gemm;; new2*) echo $d/new2/fusekit_bench_gemm;; expB*) echo $d/expB/fusekit_bench_gemm;; esac; }
run() { FUSEKIT_GEMM_TOKENS=925 timeout 60 $(b $1) --require-gpu --skip-ceilings --benchmark_filter="gemm/fc1/bf16/.*/(fusekit|fusekit_bare$2)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run head1 "|cublaslt"; run new21 ""; run expB1 ""; run head2 ""; run new22 ""; run expB2 "|cublaslt"
O=$o python3 $d/ab.py head1 new21 expB1 head2 new22 expB2 | tee $o/ab.txt
for v in new2 head expB; do
  FUSEKIT_GEMM_TOKENS=925 timeout 100 ncu --graph-profiling node --clock-control none -k 'regex:gemm_kernel' --launch-skip 4 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --metrics sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_read.sum,dram__bytes_read.sum \
    $(b $v) --require-gpu --skip-ceilings --benchmark_filter="gemm/fc1/bf16/tokens=925/fusekit/gpu_throughput" > $o/ncu_$v.txt 2>&1
  echo "ncu $v rc=$? t=$SECONDS"; grep -E "Duration|SM Frequency|gmma_cycles_active|DRAM Throughput|dram__bytes_read|lts__t_sectors_op_read|Registers Per|Memory Throughput" $o/ncu_$v.txt | head -12
done
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
