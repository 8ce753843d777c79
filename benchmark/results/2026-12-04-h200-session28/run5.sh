#!/usr/bin/env bash
# Session 28 call 5: the committed fix (Bias skips tile columns with no W row behind them) on the
# H200: GEMM suite, memcheck / racecheck / synccheck on the GLU and plain-linear tests.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fix/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fix/*; export LD_LIBRARY_PATH=$d
o=$OUT/call5; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/fix/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
cases='linear:*,linear_glu:*,fc1_swiglu: the tiny*'
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T -tc="$cases" > $o/$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/$tool.log
done
FUSEKIT_GEMM_PATH=portable timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear_glu:*' > $o/memcheck_portable.log 2>&1; echo "memcheck portable rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck_portable.log
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
