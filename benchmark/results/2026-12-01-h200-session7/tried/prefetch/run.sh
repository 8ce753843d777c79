#!/usr/bin/env bash
# Session 7, call 2: epilogue side inputs prefetched into L2 by the producer warp. GPU tests,
# memcheck/racecheck on the small and odd cases of every epilogue, then every H3 linear's
# gpu_throughput, 283fb25 (old) and this build (new) alternating twice; ceilings in new1.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/q2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ')"
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
for tool in memcheck racecheck; do
  timeout 170 compute-sanitizer --tool $tool --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/sanitize_$tool.log | tail -1) $(grep 'test cases' $o/sanitize_$tool.log)"
done
run() { # name bin [extra]
  timeout 150 $2 --require-gpu ${3:-} --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$?"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 | tee $o/ab.txt
cd $OUT && tar czf q2.tgz q2
