#!/usr/bin/env bash
# Session 28 call 4: fc1's pairs (925 tokens) loaded as 8-row 2-D boxes (C, the build under test)
# or as one 4-D box a half (A3, bench only), both with store8's 16-byte store restored, against
# 12bb3d6 (head): GEMM suite + sanitizers on C's GLU tests, fc1 medians alternating, every
# linear at the default token counts (head vs C), then the layer report on C.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/C/*.xz "$d"/A3/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/C/* $d/A3/*; export LD_LIBRARY_PATH=$d
o=$OUT/call4; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
T=$d/C/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
cases='linear_glu:*,fc1_swiglu: the tiny*'
for tool in memcheck synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T -tc="$cases" > $o/$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/$tool.log
done
run() { FUSEKIT_GEMM_TOKENS=925 timeout 60 $d/${1%?}/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/fc1/bf16/.*/(fusekit|fusekit_bare$2)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run head1 "|cublaslt"; run C1 ""; run A31 ""; run head2 ""; run C2 ""; run A32 "|cublaslt"
O=$o python3 $d/ab.py head1 C1 A31 head2 C2 A32 | tee $o/ab.txt
all() { timeout 120 $d/${1%?}/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare$2)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
all headA "|cublaslt"; all CA ""
O=$o python3 $d/ab.py headA CA | tee $o/ab_all.txt
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
if [ "${LAYER_REPORT:-1}" = 1 ]; then
  mkdir -p $OUT/layer && OUT=$OUT/layer timeout 300 bash $d/h200_layer_report.sh $d/C > $OUT/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
  tail -n 27 $OUT/layer/run.log
fi
