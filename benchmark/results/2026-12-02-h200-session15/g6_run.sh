#!/usr/bin/env bash
# Session 15 call g6: branch wip/swapped-232 made merge-ready (swapped tiles of 160 or 232 tokens,
# choose_swapped_tiles). GPU suite, memcheck on the swapped cases, qkv_proj/fc1 at 150 and 925
# tokens automatic / never, the whole suite and the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin/*.xz ; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin/fusekit_* ; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g6}; mkdir -p $o; SECONDS=0
timeout 150 $d/fin/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='linear: swapped*,linear_glu: both*,linear: bias*,linear_residual: plain*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
run() { FUSEKIT_GEMM_TOKENS=150,925 FUSEKIT_SWAPPED_TILES=$2 timeout 60 $d/fin/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
run auto1 automatic; run never1 never
O=$o python3 $d/ab.py auto1 never1 | tee $o/ab.txt
timeout 110 $d/fin/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
echo "layer report: not run in this call (its build was stopped for time)"
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-g6}.tgz ${CALL:-g6}
