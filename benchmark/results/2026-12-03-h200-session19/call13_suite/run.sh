#!/usr/bin/env bash
# Nineteenth session, final call: GPU suite, memcheck on a subset, and the row benchmark
# (gpu_throughput, 9 samples) of this build (fusekit and copy rows) and of HEAD's (old/: fusekit
# rows of the bandwidth and H3 suites), one after the other on the same GPU. Each step has its own
# time limit; console output is kept, so a step cut short still leaves its finished rows.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
timeout 150 "$d/fusekit_test_reduce_gpu" > "$OUT/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$OUT/test_reduce_gpu.log"
timeout 75 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/fusekit_test_reduce_gpu" \
  -tc="rms_norm: strides*,layer_norm: aligned*,*rejects*" > "$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$OUT/memcheck.log" | tail -n 2
timeout 200 "$d/fusekit_bench_reduce" --require-gpu --samples=9 --benchmark_filter='(fusekit|copy)/gpu_throughput' \
  > "$OUT/bench_new.txt" 2> "$OUT/bench_new.log"; echo "bench new rc $?"
timeout 90 "$d/old/fusekit_bench_reduce" --require-gpu --skip-ceilings --samples=9 \
  --benchmark_filter='(reduce_bw|h3_norm).*fusekit/gpu_throughput' > "$OUT/bench_old.txt" 2>&1; echo "bench old rc $?"
