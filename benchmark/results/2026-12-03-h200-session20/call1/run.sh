#!/usr/bin/env bash
# Twentieth session, call 1: GPU suite + memcheck on build A (LayerNorm rebased to x - mean; 16-bit
# rows up to 4 vectors; f32 2-vector general kernels held to 7 CTAs an SM), then the mid-row and
# seed-shape benchmarks of HEAD (old), A and B (rebased 16-bit rows up to 2 vectors, no CTA floor),
# alternating twice (gpu_throughput, 9 samples).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
timeout 150 "$d/A/fusekit_test_reduce_gpu" > "$OUT/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$OUT/test_reduce_gpu.log"
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/A/fusekit_test_reduce_gpu" \
  -tc="layer_norm: strides*,layer_norm: aligned*,layer_norm: residual*" > "$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$OUT/memcheck.log" | tail -n 2
F='(reduce/.*(37x|1024x4096)|reduce_bw/.*/(8192x1024|5462x1537|2048x4096|1561x5376|1024x8192|512x16384)/|h3_norm).*fusekit/gpu_throughput'
for r in 1 2; do
  for v in old A B; do
    timeout 60 "$d/$v/fusekit_bench_reduce" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$OUT/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
