#!/usr/bin/env bash
# Session 23 call 6: the sliced kernel meets the cluster wait (whose acquire invalidates L1) before it prefetches the parameters into L1, not in the first reduction. Base: 0efaf7d's code.
# The long rows and the H3 norms, alternating twice; the GPU reduce suite, memcheck, racecheck.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$OUT/call6; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$o/gpu.txt" 2>&1
xz -dc "$d/test_new.xz" > "$d/test_new" && chmod +x "$d/test_new" "$d"/bench_*
F='(reduce_bw/.*/(128x65536|8x262144|32x262144)/|h3_norm.*)fusekit/gpu_throughput'
for r in 1 2; do
  for v in base new; do
    timeout 60 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$F" > "$o/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $? t=$SECONDS"
  done
done
python3 "$d/table.py" "$o" base,new > "$o/table.txt"; cat "$o/table.txt"
timeout 200 "$d/test_new" > "$o/test_reduce_gpu.log" 2>&1; echo "tests rc $? t=$SECONDS"; tail -n 3 "$o/test_reduce_gpu.log"; grep -E "ERROR|FAILED" "$o/test_reduce_gpu.log" | head
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/test_new" \
  -tc="*staged and register kernels*,*in-place calls queued*" > "$o/memcheck.log" 2>&1; echo "memcheck rc $? t=$SECONDS"
grep -E "ERROR SUMMARY|test cases" "$o/memcheck.log" | tail -n 2
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 "$d/test_new" \
  -tc="softmax: staged and register kernels*" > "$o/racecheck.log" 2>&1; echo "racecheck rc $? t=$SECONDS"
grep -E "RACECHECK SUMMARY|test cases" "$o/racecheck.log" | tail -n 2
cd $OUT && tar cJf call6.tar.xz call6
