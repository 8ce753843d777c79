#!/usr/bin/env bash
# Twenty-first session, call 5: the GPU suite on F (the candidate: aligned write loops per option
# set, -0 sum identity, parameters loaded one option at a time, the per-warp cross-warp fold of
# HEAD) with the paths-agree test's table fixed, memcheck on the paths-agree cases; then where
# bf16 RMSNorm loses: base, F, V1 (+0 identity), V2 (parameters loaded per vector as HEAD),
# V3 (no per-option loops for RMSNorm), alternating twice. Outputs tarred.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$o/gpu.txt" 2>&1
xz -dc "$d/test_F.xz" > "$d/test_F" && chmod +x "$d/test_F"
timeout 150 "$d/test_F" > "$o/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$o/test_reduce_gpu.log"
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/test_F" \
  -tc="rms_norm: aligned and general*,layer_norm: aligned and general*" > "$o/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$o/memcheck.log" | tail -n 2
F='(reduce/rms_norm/bf16/(37x|1024x4096)|reduce_bw/rms_norm/bf16/(8192x1024|2048x4096|1561x5376|1024x8192)/|h3_norm).*fusekit/gpu_throughput'
for r in 1 2; do
  for v in base F V1 V2 V3; do
    timeout 40 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$o/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
tar -C "$o" -cJf "$OUT/call5.tar.xz" .
