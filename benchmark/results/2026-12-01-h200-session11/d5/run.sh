#!/usr/bin/env bash
# Session 11, call 5 (d5): the landed build of GEMM step 13 (128 x 256 tiles with K segments for
# out_proj/fc2 where the model picks them; entry points as templates). GPU suite, memcheck,
# racecheck, the whole suite alternating with e363f90's build (old) twice, the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* 2>/dev/null; chmod +x "$d"/lr/fusekit-* 2>/dev/null
export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-d5}; mkdir -p $o
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,QkvHeads*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*,out_proj: every*'
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: K segments*,linear: long K*,linear_residual:*,linear:*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep -E "Race reported" $o/sanitize_racecheck.log | sed 's/(.*//' | sort | uniq -c
run() { # name bin [extra]
  timeout 150 $2 --require-gpu ${3:-} --benchmark_filter="${F:-gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 | tee $o/ab.txt
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-d5}.tgz ${CALL:-d5}
