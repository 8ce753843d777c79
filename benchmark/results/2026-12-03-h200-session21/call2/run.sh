#!/usr/bin/env bash
# Twenty-first session, call 2: as call 1, with the cross-warp fold testing groups of four warps;
# A: write loops per common option set in every aligned kernel; B: only in kernels of 4 vectors
# a thread or more. Alternating twice
# (gpu_throughput, 9 samples).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
for v in base A B; do [ -f "$d/bench_$v.xz" ] && xz -dc "$d/bench_$v.xz" > "$d/bench_$v" && chmod +x "$d/bench_$v"; done
F='(reduce/.*(37x|1024x4096)|reduce_bw/.*/(8192x1024|5462x1537|2048x4096|1561x5376|1024x8192|512x16384)/|h3_norm).*fusekit/gpu_throughput'
for r in 1 2; do
  for v in base A B; do
    timeout 70 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$OUT/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
