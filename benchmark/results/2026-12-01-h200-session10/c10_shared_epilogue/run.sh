#!/usr/bin/env bash
# Session 10, call 10: step 12, the few-row wide kernel sharing its epilogue over both consumers (8 warps), with no per-consumer barrier at staging; QkvHeads as in step 11. GPU suite,
# memcheck + racecheck, the suite alternating with call 1 (c1 = step 11) twice, the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* "$d"/lr/fusekit-*
export LD_LIBRARY_PATH=$d
o=$OUT/c3; mkdir -p $o
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -10
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,QkvHeads*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='QkvHeads*,linear_qkv:*,fc1_swiglu: the tiny*,linear_glu:*,linear:*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep -E "Race reported" $o/sanitize_racecheck.log | sed 's/(.*//' | sort | uniq -c
run() { # name bin [extra]
  timeout 110 $2 --require-gpu ${3:-} --benchmark_filter="${F:-gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run new1 $d/fusekit_bench_gemm
run c1a $d/fusekit_bench_gemm_c1 --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run c1b $d/fusekit_bench_gemm_c1 --skip-ceilings
O=$o python3 $d/ab.py new1 c1a new2 c1b | tee $o/ab.txt
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf c3.tgz c3
