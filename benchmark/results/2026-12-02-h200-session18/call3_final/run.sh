#!/bin/bash
# call 3 (final code): GPU suite, memcheck on the staged tests, racecheck on sliced launches, long-row A/B.
final=$OUT; o=/tmp/o; mkdir -p $o; d=carry/s18
OUT=$o bash tools/h200_reduce.sh $d tests
export LD_LIBRARY_PATH=$PWD/$d
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_reduce_gpu \
  -tc="*staged and register kernels*,*queued*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|test cases" $o/sanitize_memcheck.log | tail -n 2
for op in softmax/bf16/128x65536 rms_norm/f32/8x262144 layer_norm/bf16/32x262144; do
  timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=1 \
    --benchmark_filter="^reduce_bw/$op/fusekit/gpu_throughput" > $o/racecheck_${op//\//_}.log 2>&1; echo "racecheck $op rc=$?"
  grep -E "RACECHECK SUMMARY|hazard" $o/racecheck_${op//\//_}.log | tail -n 1
done
OUT=$o SAMPLES=9 SHAPES='(512x16384|128x65536|8x262144|32x262144)' \
 CONFIGS="registers:FUSEKIT_ROW_KERNEL=registers automatic:FUSEKIT_ROW_KERNEL=automatic" \
 bash tools/h200_reduce_sweep.sh $d sweep
tar czf $final/call3.tgz -C $o .
