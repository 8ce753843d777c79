#!/usr/bin/env bash
# Session 9, call 1: the qkv/GLU epilogue nodes with rows in flight, and the short last M-tile
# (idle consumer passes, cheap tiles last, snake over the CTAs). GPU suite, then the whole bench
# suite alternating with 4688e0f's binary (old) twice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* "$d"/lr/fusekit-*
export LD_LIBRARY_PATH=$d
o=$OUT/r1; mkdir -p $o
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -10
run() { # name bin [extra]
  timeout 110 $2 --require-gpu ${3:-} --benchmark_filter="${F:-gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run new1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old --skip-ceilings
run new2 $d/fusekit_bench_gemm --skip-ceilings
run old2 $d/fusekit_bench_gemm_old --skip-ceilings
O=$o python3 $d/ab.py new1 old1 new2 old2 | tee $o/ab.txt
cd $OUT && tar czf r1.tgz r1
