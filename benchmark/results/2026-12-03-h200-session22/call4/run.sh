#!/usr/bin/env bash
# Twenty-second session, call 4: LayerNorm's held weight and bias loaded a loop per parameter
# (`ln`), RMSNorm's as before. GPU reduce suite and memcheck on the paths-agree cases of `ln`;
# then LayerNorm and bf16 RMSNorm: base (e0574e5), V2 (d77eebb), ln, alternating twice.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$OUT/call4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$o/gpu.txt" 2>&1
xz -dc "$d/test_ln.xz" > "$d/test_ln" && chmod +x "$d/test_ln" "$d"/bench_*
timeout 200 "$d/test_ln" > "$o/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$o/test_reduce_gpu.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/test_ln" \
  -tc="rms_norm: aligned and general*,layer_norm: aligned and general*" > "$o/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$o/memcheck.log" | tail -n 2
F='((reduce|reduce_bw)/layer_norm/.*|reduce_bw/rms_norm/bf16/.*|h3_norm.*)fusekit/gpu_throughput'
for r in 1 2; do
  for v in base V2 ln; do
    timeout 60 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$o/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
python3 "$d/table.py" "$o" base,V2,ln > "$o/table.txt"; cat "$o/table.txt"
cd $OUT && tar cJf call4.tar.xz call4
