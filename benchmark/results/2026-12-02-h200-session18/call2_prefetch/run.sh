#!/bin/bash
# call 2: GPU suite, sanitizers on the staged tests, the slice sweep, ncu of the long rows.
final=$OUT; o=/tmp/o; mkdir -p $o; d=carry/s18
OUT=$o bash tools/h200_reduce.sh $d tests
export LD_LIBRARY_PATH=$PWD/$d
for tool in memcheck racecheck; do
  timeout 170 compute-sanitizer --tool $tool --error-exitcode 9 $d/fusekit_test_reduce_gpu \
    -tc="*staged and register kernels*,*queued*" > $o/sanitize_$tool.log 2>&1; echo "$tool rc=$?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $o/sanitize_$tool.log | tail -n 2
done
OUT=$o SAMPLES=9 SHAPES='(1561x5376|1024x8192|512x16384|128x65536|8x262144|32x262144)' \
 CONFIGS="registers:FUSEKIT_ROW_KERNEL=registers staged:FUSEKIT_ROW_KERNEL=staged s32p1:FUSEKIT_SLICE_PIECES=1 s64:FUSEKIT_SLICE_KB=64 s64p1:FUSEKIT_SLICE_KB=64,FUSEKIT_SLICE_PIECES=1 s16:FUSEKIT_SLICE_KB=16" \
 bash tools/h200_reduce_sweep.sh $d sweep
for k in "sliced softmax bf16:FUSEKIT_ROW_KERNEL=automatic:softmax/bf16" "reg softmax bf16:FUSEKIT_ROW_KERNEL=registers:softmax/bf16" "sliced rms f32:FUSEKIT_ROW_KERNEL=automatic:rms_norm/f32" "reg rms f32:FUSEKIT_ROW_KERNEL=registers:rms_norm/f32"; do
  IFS=: read -r name env op <<< "$k"; f=$o/ncu_${name// /_}.txt
  env $env timeout 60 ncu --set full --clock-control none -k regex:'row_kernel|row_cluster' --launch-skip 4 --launch-count 1 \
    $d/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=1 --benchmark_filter="^reduce_bw/$op/8x262144/fusekit/gpu_throughput" > $f 2>&1
  echo "== $name"; grep -E "^\s+(Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Executed Ipc A|Memory Throughput|Warp Cycles Per Issued)" $f | head -12
done
tar czf $final/call2.tgz -C $o .
