#!/usr/bin/env bash
# Thirty-sixth session, call 2: GPU tests of one build (words or words48), then memcheck with no
# guard bytes on the phased-and-general and misaligned cases (the parameter words' over-read).
# Carry: carry/s36/{common.sh,run2.sh}, carry/s36/B (test and bench), carry/s33/libbenchmark.so.1debian.
#   OUT=... B=words bash carry/s36/run2.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call2; mkdir -p $o; gpu_info $o
timeout 260 $d/$B/fusekit_test_reduce_gpu > $o/test_reduce_$B.log 2>&1
echo "$B tests rc=$? $(grep 'test cases' $o/test_reduce_$B.log) t=$SECONDS"
FUSEKIT_TEST_GUARD_BYTES=0 timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $d/$B/fusekit_test_reduce_gpu \
  -tc="*phased and general*,*misaligned*" > $o/memcheck_$B.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_$B.log | tail -1) $(grep 'test cases' $o/memcheck_$B.log) t=$SECONDS"
# ncu source counters (no cache flush: closer to the graph replay) of bf16 LayerNorm 37 x 1537 and
# RMSNorm 5462 x 1537 on this build, for the next step's instruction walk.
[ -n "${NO_NCU:-}" ] || for c in layer_norm/bf16/37x1537 rms_norm/bf16/5462x1537; do
  n=$(echo $c | tr / _)
  timeout 90 ncu --graph-profiling node --clock-control none --cache-control none -k 'regex:row_kernel' --launch-skip 5 --launch-count 1 --set full --import-source no -f -o $o/$n \
    $d/$B/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="/$c/fusekit/gpu_throughput" > $o/ncu_${n}_run.txt 2>&1; echo "ncu $n rc=$? t=$SECONDS"
  ncu -i $o/$n.ncu-rep --page source --print-source sass --csv > $o/${n}_src.csv 2> $o/${n}_src.err
  ncu -i $o/$n.ncu-rep --page details > $o/${n}_details.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued" $o/${n}_details.txt | head -6
  rm -f $o/$n.ncu-rep; xz $o/${n}_src.csv
done
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
