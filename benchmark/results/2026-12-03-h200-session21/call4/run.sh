#!/usr/bin/env bash
# Twenty-first session, call 4 (call 3 never got a machine): the GPU suite on the candidate
# (aligned write loops per option set; cross-warp partials padded to groups of four, all groups
# read, each group folded if it holds a warp of the row), memcheck on the paths-agree cases; then
# base against A (the candidate) and B (the old per-warp fold with the -0 sum identity),
# alternating twice; ncu instruction counts of two mid-row kernels; SASS of two RMSNorm kernels.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
xz -dc "$d/test_v2.xz" > "$d/test_v2" && chmod +x "$d/test_v2"
timeout 200 "$d/test_v2" > "$OUT/test_reduce_gpu.log" 2>&1; echo "tests rc $?"; tail -n 3 "$OUT/test_reduce_gpu.log"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/test_v2" \
  -tc="rms_norm: aligned and general*,layer_norm: aligned and general*" > "$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$OUT/memcheck.log" | tail -n 2
F='(reduce/.*(37x|1024x4096)|reduce_bw/.*/(8192x1024|5462x1537|2048x4096|1561x5376|1024x8192|512x16384)/|h3_norm).*fusekit/gpu_throughput'
for r in 1 2; do
  for v in base A B; do
    timeout 70 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 \
      --benchmark_filter="$F" > "$OUT/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $?"
  done
done
M=smsp__inst_executed.sum,smsp__warps_launched.sum,launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum
for op in layer_norm rms_norm; do
  for v in base A; do
    timeout 60 ncu --clock-control none --kernel-name-base mangled --kernel-name regex:row_kernel -c 1 --metrics $M \
      "$d/bench_$v" --require-gpu --skip-ceilings --samples=1 \
      --benchmark_filter="reduce_bw/$op/bf16/8192x1024/fusekit/gpu_throughput" > "$OUT/ncu_${op}_$v.txt" 2>&1
    echo "ncu $op $v rc $?"
  done
done
k=_ZN7fusekit6reduce10row_kernelINS0_13RmsNormPolicyEffLNS0_8RowShapeE1ELb0EEEvNS0_9RowParamsEi
for v in base A; do cuobjdump -sass -fun "$k" "$d/bench_$v" > "$OUT/sass_rms_f32_warps_$v.txt" 2>&1; done
k=_ZN7fusekit6reduce10row_kernelINS0_13RmsNormPolicyE13__nv_bfloat16S3_LNS0_8RowShapeE1ELb1EEEvNS0_9RowParamsEi
for v in base A; do cuobjdump -sass -fun "$k" "$d/bench_$v" > "$OUT/sass_rms_bf16_warps_aligned_$v.txt" 2>&1; done
