#!/usr/bin/env bash
# Twenty-second session, call 3: LayerNorm on d77eebb's code (V2 of the twenty-first session,
# the committed write loops and load order) against the base e0574e5, alternating twice.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$OUT/call3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$o/gpu.txt" 2>&1
F='(reduce|reduce_bw)/layer_norm/.*fusekit/gpu_throughput'
for r in 1 2; do
  for v in base V2; do
    timeout 60 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$o/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
cd $OUT && tar cJf call3.tar.xz call3
