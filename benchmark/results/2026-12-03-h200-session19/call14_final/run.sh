#!/usr/bin/env bash
# Nineteenth session, last call: the final build (spilled vector in shared memory, parameters held
# for 16-bit rows only): GPU suite, memcheck on the misaligned-layout test, and the bandwidth and
# H3 suites' fusekit rows (gpu_throughput, 9 samples).
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
timeout 140 "$d/fusekit_test_reduce_gpu" > "$OUT/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$OUT/test_reduce_gpu.log"
timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/fusekit_test_reduce_gpu" \
  -tc="softmax: strides*" > "$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$OUT/memcheck.log" | tail -n 2
timeout 75 "$d/fusekit_bench_reduce" --require-gpu --skip-ceilings --samples=9 \
  --benchmark_filter='(reduce_bw|h3_norm).*fusekit/gpu_throughput' > "$OUT/bench_new.txt" 2>&1; echo "bench rc $?"
