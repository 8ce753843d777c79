#!/usr/bin/env bash
# Session 22 call 1: thin tiles (kernel_sm90_thin.hpp) for out_proj / fc2 at few rows.
# GPU suite, memcheck on the K-segment and overlap tests, then out_proj / fc2 at 37 and 70
# tokens: narrow (the previous automatic: the split 128-column kernel) against thin, alternating
# twice, and both in the `weights` overlap mode.
set -u
d=$(cd "$(dirname "$0")" && pwd); b=$d/b1
for f in "$b"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$b"/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
timeout 200 $b/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $b/fusekit_test_gemm -tc='linear: K segments*,linear: launched over*,out_proj: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
grep -m3 "Invalid\|Error" $o/sanitize_memcheck.log
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_SEGMENT_TILES=$2 FUSEKIT_GRID_OVERLAP=${3:-prologue} timeout 60 $b/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run narrow$i narrow; run thin$i thin; done
run narroww narrow weights; run thinw thin weights
O=$o python3 $d/ab.py narrow1 thin1 narrow2 thin2 narroww thinw | tee $o/ab.txt
echo "t=$SECONDS"
cd $OUT && tar cJf call1.tar.xz call1
