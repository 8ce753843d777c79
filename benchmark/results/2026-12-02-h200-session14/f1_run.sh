#!/usr/bin/env bash
# NOT YET RUN. Branch wip/epilogue-diet against main 7d14877 (the builds carried beside this file,
# xz-compressed): silu in MUFU forms (fc1's SwiGLU epilogue) and QkvHeads' per-row diet (the table
# loads' vector/scalar choice made once, row pointers stepped). Run as
#   run(command="CALL=f1 bash carry/next-epilogue-diet/run.sh", carry=["carry/next-epilogue-diet"])
# GPU suite of A and B (README); memcheck of the fc1/qkv cases; fused fc1 and qkv_proj (and
# bare, as a control) A ("new") / B ("v8") / main alternating 3x; the whole suite and the layer report on the new build. About 5 min.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fusekit_* "$d"/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-f1}; mkdir -p $o; SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
timeout 200 $d/fusekit_test_gemm_v8 > $o/test_gemm_hopper_v8.log 2>&1; echo "test v8 rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper_v8.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper_v8.log | head -20
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm_v8 -tc='QkvHeads*,qkv_proj*,linear_qkv*' > $o/sanitize_memcheck_v8.log 2>&1
echo "memcheck v8 rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck_v8.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck_v8.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc='QkvHeads*,qkv_proj*,fc1_swiglu*,linear_qkv*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
run() { timeout 120 $2 --require-gpu --skip-ceilings --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
F='gemm/(qkv_proj|fc1)/.*/(fusekit|fusekit_bare)/gpu_throughput'
for i in 1 2 3; do run new$i $d/fusekit_bench_gemm "$F"; run v8_$i $d/fusekit_bench_gemm_v8 "$F"; run main$i $d/fusekit_bench_gemm_main "$F"; done
O=$o python3 $d/ab.py new1 v8_1 main1 new2 v8_2 main2 new3 v8_3 main3 | tee $o/ab.txt
timeout 120 $d/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-f1}.tgz ${CALL:-f1}
