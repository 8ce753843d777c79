#!/usr/bin/env bash
# Session 28 call 1: 12bb3d6 (the swapped kernel's review refactor) on the H200: GEMM suite,
# synccheck / racecheck / memcheck on the swapped-tile and K-segment tests, 925-token medians.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/head/fusekit_test_gemm
timeout 120 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 $T -tc='linear: swapped tiles*,linear: K segments*' > $o/synccheck.log 2>&1; echo "synccheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck.log
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 --racecheck-report analysis $T -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/racecheck.log
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear: swapped tiles*,out_proj: every*,fc1_swiglu*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
FUSEKIT_GEMM_TOKENS=925 timeout 90 $d/head/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_head.json --benchmark_out_format=json > $o/bench_head.txt 2>&1; echo "bench rc=$? t=$SECONDS"
O=$o python3 $d/ab.py head | tee $o/ab.txt
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
