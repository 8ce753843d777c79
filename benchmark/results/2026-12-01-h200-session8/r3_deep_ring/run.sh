#!/usr/bin/env bash
# Session 8, call 3: split tiles with a batched fold, and the 7-stage narrow ring (staging in the
# ring) for one-k-range-per-CTA calls. GPU suite, memcheck (small and odd cases), racecheck
# (narrow long-K cases), every linear alternating with 5c724f1 twice, then out_proj/fc2 with
# every tile whole (no tail split) for the 925/4096 choice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/r3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|error" $o/test_gemm_hopper.log | head -20
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: long K*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { # name bin [extra]
  timeout 100 $2 --require-gpu ${3:-} --benchmark_filter="${F:-gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
F='(out_proj|fc2)/bf16/tokens=(925|4096)/fusekit.*/gpu_throughput' FUSEKIT_SPLIT_K=whole run whole1 $d/fusekit_bench_gemm --skip-ceilings
F='(out_proj|fc2)/bf16/tokens=(925|4096)/fusekit.*/gpu_throughput' run auto3 $d/fusekit_bench_gemm --skip-ceilings
F='(out_proj|fc2)/bf16/tokens=(925|4096)/fusekit.*/gpu_throughput' FUSEKIT_SPLIT_K=whole run whole2 $d/fusekit_bench_gemm --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 whole1 auto3 whole2 | tee $o/ab.txt
cd $OUT && tar czf r3.tgz r3
