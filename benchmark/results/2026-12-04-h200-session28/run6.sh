#!/usr/bin/env bash
# Session 28 call 6: 232-token tiles hand their epilogue to the epilogue warps (3 stages, two
# 120-token chunks, the second held in registers: D) against base (8573004): GEMM suite,
# sanitizers on the swapped-tile, GLU and K-segment tests, 925-token medians alternating twice,
# then the layer report on D.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/base/*.xz "$d"/D/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/D/*; export LD_LIBRARY_PATH=$d
o=$OUT/call6; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/D/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
cases='linear: swapped tiles*,linear: K segments*,linear_glu:*,fc1_swiglu: the tiny*'
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T -tc="$cases" > $o/$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/$tool.log
  grep "Race reported" $o/$tool.log | grep -vc nvjet
done
run() { FUSEKIT_GEMM_TOKENS=925 timeout 90 $d/${1%?}/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare$2)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 "|cublaslt"; run D1 ""; run base2 ""; run D2 "|cublaslt"
O=$o python3 $d/ab.py base1 D1 base2 D2 | tee $o/ab.txt
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
if [ "${LAYER_REPORT:-1}" = 1 ]; then
  mkdir -p $OUT/layer && OUT=$OUT/layer timeout 300 bash $d/h200_layer_report.sh $d/D > $OUT/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
  tail -n 27 $OUT/layer/run.log
fi
