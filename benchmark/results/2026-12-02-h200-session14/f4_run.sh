#!/usr/bin/env bash
# Session 14 call f4. new/ = branch wip/residual-prefetch (the residual node's rows prefetched
# into L2 before each tile's math); pdl/ = main ab07feb's build (call f3), the baseline. GPU suite
# and memcheck of the residual cases on new; out_proj and fc2 new / main alternating 3 times;
# the whole suite on new.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz "$d"/pdl/fusekit_bench_gemm.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/new/fusekit_* "$d"/pdl/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-f4}; mkdir -p $o; SECONDS=0
timeout 120 $d/new/fusekit_test_gemm > $o/test_gemm_new.log 2>&1; echo "test new rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_new.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_new.log | head -10
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $d/new/fusekit_test_gemm -tc='linear_residual*,out_proj*,fc2*' > $o/sanitize_memcheck_new.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck_new.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck_new.log) t=$SECONDS"
run() { timeout 60 $2 --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2 3; do run new$i $d/new/fusekit_bench_gemm; run main$i $d/pdl/fusekit_bench_gemm; done
O=$o python3 $d/ab.py new1 main1 new2 main2 new3 main3 | tee $o/ab.txt
timeout 100 $d/new/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-f4}.tgz ${CALL:-f4}
