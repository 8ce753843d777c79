#!/usr/bin/env bash
# Thirty-sixth session: ncu source counters of base/ and words/ (run2.sh's ncu part alone), with no cache
# flush (closer to the graph replay): bf16 LayerNorm 37 x 1537 and RMSNorm 5462 x 1537.
# Carry: carry/s36/{common.sh,run4.sh}, carry/s36/base, carry/s36/words/fusekit_bench_reduce.xz.
#   OUT=... bash carry/s36/run4.sh
set -u
source "$(dirname "$0")/common.sh"
# Ran twice: with B=base (files in ncu_main/) and with B=words (ncu_words/); call4 renamed after.
o=$OUT/call4; mkdir -p $o; gpu_info $o; B=${B:-words}
# ncu source counters (no cache flush: closer to the graph replay) of bf16 LayerNorm 37 x 1537 and
# RMSNorm 5462 x 1537 on this build, for the next step's instruction walk.
for c in layer_norm/bf16/37x1537 rms_norm/bf16/5462x1537; do
  n=$(echo $c | tr / _)
  timeout 90 ncu --graph-profiling node --clock-control none --cache-control none -k 'regex:row_kernel' --launch-skip 5 --launch-count 1 --set full --import-source no -f -o $o/$n \
    $d/$B/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="/$c/fusekit/gpu_throughput" > $o/ncu_${n}_run.txt 2>&1; echo "ncu $n rc=$? t=$SECONDS"
  ncu -i $o/$n.ncu-rep --page source --print-source sass --csv > $o/${n}_src.csv 2> $o/${n}_src.err
  ncu -i $o/$n.ncu-rep --page details > $o/${n}_details.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued" $o/${n}_details.txt | head -6
  rm -f $o/$n.ncu-rep; xz $o/${n}_src.csv
done
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
