#!/usr/bin/env bash
# Session 15 call g3: the landed swapped tiles (model: a 160 x 128 tile at 0.7 of a 128 x 256 one).
# GPU suite, sanitizers on the swapped cases, qkv_proj/fc1 at 150 and 925 tokens with the
# swapped tiles automatic / never alternating twice, the whole suite and the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin/*.xz "$d"/fin/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin/fusekit_* "$d"/fin/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g3}; mkdir -p $o; SECONDS=0
timeout 150 $d/fin/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='*swapped*,linear_glu: both*,QkvHeads*,linear: bias*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='*swapped*,QkvHeads*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { FUSEKIT_GEMM_TOKENS=150,925 FUSEKIT_SWAPPED_TILES=$2 timeout 60 $d/fin/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run auto$i automatic; run never$i never; done
O=$o python3 $d/ab.py auto1 never1 auto2 never2 | tee $o/ab.txt
timeout 110 $d/fin/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/fin/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-g3}.tgz ${CALL:-g3}
