#!/usr/bin/env bash
# Session 13 call e7: QkvHeads on octets (8 lanes a (row, head)). GPU suite, memcheck and racecheck
# of the qkv cases; qkv_proj new (this tree) vs old (next-light-tiles build = main 40fd5ec with the
# warp-per-head epilogue) alternating 3x; the whole suite on new once; the layer report on new.
set -u
d=$(cd "$(dirname "$0")" && pwd); od=$(cd "$d/../next-light-tiles" && pwd)
for f in "$d"/bin/*.xz "$d"/bin/lr/*.xz "$od"/fusekit_bench_gemm.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/bin/fusekit_* "$d"/bin/lr/fusekit-* "$od"/fusekit_bench_gemm; export LD_LIBRARY_PATH=$od
o=$OUT/${CALL:-e7}; mkdir -p $o; SECONDS=0
timeout 200 $d/bin/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $d/bin/fusekit_test_gemm -tc='QkvHeads*,linear_qkv*,qkv_proj*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $d/bin/fusekit_test_gemm -tc='QkvHeads*,linear_qkv*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { timeout 120 $2 --require-gpu ${4:-} --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
Q='gemm/qkv_proj/.*/gpu_throughput'
for i in 1 2 3; do run new$i $d/bin/fusekit_bench_gemm $Q --skip-ceilings; run old$i $od/fusekit_bench_gemm $Q --skip-ceilings; done
O=$o python3 $od/ab.py new1 old1 new2 old2 new3 old3 | tee $o/ab.txt
run suite $d/bin/fusekit_bench_gemm 'gpu_throughput'
OUT=$o/lr bash tools/h200_layer_report.sh $d/bin/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e7}.tgz ${CALL:-e7}
