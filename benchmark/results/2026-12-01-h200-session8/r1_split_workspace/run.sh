#!/usr/bin/env bash
# Session 8, call 1: K segments split across CTAs through a global workspace (no clusters).
# GPU suite (Hopper path), memcheck on the small and odd cases, every linear alternating with
# 5c724f1 (old: clusters of 2 at 70 tokens) twice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/r1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
run() { # name bin [extra]
  timeout 150 $2 --require-gpu ${3:-} --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 | tee $o/ab.txt
cd $OUT && tar czf r1.tgz r1
