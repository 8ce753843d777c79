#!/usr/bin/env bash
# Session 7, call 5: the GLU and residual nodes without a division per item (on top of 53b326d).
# GPU tests, memcheck on the small and odd cases, every linear alternating with 53b326d (old)
# twice, then ncu of this build's qkv_proj and fc1 at 4096 tokens (what the epilogue does now).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/q5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ')"
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log)"
run() { # name bin [extra]
  timeout 150 $2 --require-gpu ${3:-} --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$?"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 | tee $o/ab.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for c in qkv_proj fc1; do
  n=${c}4096_fusekit
  timeout 120 $NCU --clock-control none --set full --import-source no -k regex:gemm_kernel_sm90 -c 1 -o $o/$n \
    $d/fusekit_bench_gemm --skip-ceilings --benchmark_filter="$c/bf16/tokens=4096/fusekit/gpu_throughput" > $o/$n.log 2>&1
  echo "$n rc=$?"
  $NCU -i $o/$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/$n.sass.csv.gz
  rm -f $o/$n.ncu-rep
done
cd $OUT && tar czf q5.tgz q5
