#!/usr/bin/env bash
# Session 28 call 2: fc1's GLU pairs made in registers on the 232-token tiles and handed to the
# epilogue warps (new) against 12bb3d6 (head): GEMM suite, synccheck / racecheck / memcheck on the
# GLU tests, 925-token medians alternating twice, then the layer report on the new build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/new/*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/new/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
cases='linear_glu:*,fc1_swiglu: the tiny*'
for tool in synccheck racecheck memcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T -tc="$cases" > $o/$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/$tool.log
done
run() { FUSEKIT_GEMM_TOKENS=925 timeout 90 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare$3)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run head1 head "|cublaslt"; run new1 new ""; run head2 head ""; run new2 new "|cublaslt"
O=$o python3 $d/ab.py head1 new1 head2 new2 | tee $o/ab.txt
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
if [ "${LAYER_REPORT:-1}" = 1 ]; then
  mkdir -p $OUT/layer && OUT=$OUT/layer timeout 300 bash $d/h200_layer_report.sh $d/new > $OUT/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
  tail -n 30 $OUT/layer/run.log
fi
