#!/usr/bin/env bash
# Session 34 call 6: ncu of the phased kernels (run5.sh says what they are): instructions,
# registers, achieved occupancy and time of one launch each, bf16 LayerNorm 37 x 1537 (latency-
# bound: the length of a warp's instruction chain) and RMSNorm 5462 x 1537, general (off), phased
# (on) and held. At most 180 s.   OUT=... bash carry/s34/run6.sh   (carry carry/s33 and carry/s34)
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call6; mkdir -p $o; gpu_info $o
B=$d/phased/fusekit_bench_reduce
M=smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
for c in "layer_norm/bf16/37x1537" "rms_norm/bf16/5462x1537"; do
  for v in off on held; do
    bin=$B; [ $v = held ] && bin=$d/held/fusekit_bench_reduce
    phased=$v; [ $v = held ] && phased=on
    n=ncu_${v}_$(echo $c | tr / _)
    FUSEKIT_PHASED=$phased timeout 30 ncu --graph-profiling node --clock-control none -k 'regex:row_kernel' --launch-skip 5 \
      --launch-count 1 --metrics $M $bin --require-gpu --skip-ceilings --benchmark_filter="/$c/fusekit/gpu_throughput" > $o/$n.txt 2>&1
    echo "$n rc=$? $(grep -E 'inst_executed|duration|registers|warps_active' $o/$n.txt | awk '{print $1, $NF}' | tr '\n' ' ') t=$SECONDS"
  done
done
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
