#!/usr/bin/env bash
# Session 14 call f3. pdl/ = branch wip/gemm-pdl with the overlap only on the few-row K-segment
# kernel (out_proj/fc2 at 70 tokens; default mode `prologue`): GPU suite, sanitizers on the PDL
# chain test, out_proj/fc2 70 tokens in the three modes alternating twice, the whole suite and
# the layer report in the default mode.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/pdl/*.xz "$d"/pdl/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/pdl/fusekit_* "$d"/pdl/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-f3}; mkdir -p $o; SECONDS=0
timeout 120 $d/pdl/fusekit_test_gemm > $o/test_gemm_pdl.log 2>&1; echo "test pdl rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_pdl.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_pdl.log | head -10
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $d/pdl/fusekit_test_gemm -tc='*programmatic*,out_proj: every*,fc2: every*' > $o/sanitize_memcheck_pdl.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck_pdl.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck_pdl.log) t=$SECONDS"
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $d/pdl/fusekit_test_gemm -tc='*programmatic*' > $o/sanitize_racecheck_pdl.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/sanitize_racecheck_pdl.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck_pdl.log) t=$SECONDS"
run() { FUSEKIT_GRID_OVERLAP=$2 timeout 60 $d/pdl/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/tokens=70/.*/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run none$i none; run prologue$i prologue; run weights$i weights; done
O=$o python3 $d/ab.py none1 prologue1 weights1 none2 prologue2 weights2 | tee $o/ab.txt
timeout 100 $d/pdl/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/pdl/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-f3}.tgz ${CALL:-f3}
