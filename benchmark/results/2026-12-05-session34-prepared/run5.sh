#!/usr/bin/env bash
# Session 34 call 5: misaligned 16-bit rows whose parameters are aligned (every row of N = 1537)
# through the phased kernels (wip/phased-params: each parameter vector read as the two aligned
# words it straddles, the aligned kernels' fixed write loops; same bits as the general kernels).
#  1. the branch's row GPU suite (two new cases: phased = prefetched = general, bit for bit);
#  2. memcheck with no guard bytes on the two new cases (every layout, option set, in place);
#  3. the N = 1537 norm cases, one binary, FUSEKIT_PHASED=off (general, as main) / on / prefetch,
#     and the held build (parameters held through the reductions), twice alternating, 15 samples;
#  (run6.sh: ncu of the same.) At most 560 s at its timeouts.
#   OUT=... bash carry/s34/run5.sh     (carry carry/s33 and carry/s34)
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call5; mkdir -p $o; gpu_info $o
T=$d/phased/fusekit_test_reduce_gpu
timeout 150 $T > $o/test_reduce.log 2>&1; echo "test_reduce rc=$? $(grep 'test cases' $o/test_reduce.log) t=$SECONDS"
grep -E 'ERROR|FAILED' $o/test_reduce.log | head -5
FUSEKIT_TEST_GUARD_BYTES=0 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  -tc="*phased*" > $o/reduce_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/reduce_memcheck.log) $(grep 'test cases' $o/reduce_memcheck.log) t=$SECONDS"
B=$d/phased/fusekit_bench_reduce
F='^(reduce|reduce_bw)/(rms_norm|layer_norm)/bf16/(37x1537|5462x1537)/fusekit/gpu_throughput'
for r in 1 2; do
  bench rows_general_$r 35 $B "$F" 15 FUSEKIT_PHASED=off
  bench rows_phased_$r 35 $B "$F" 15 FUSEKIT_PHASED=on
  bench rows_prefetch_$r 35 $B "$F" 15 FUSEKIT_PHASED=prefetch
  bench rows_held_$r 35 $d/held/fusekit_bench_reduce "$F" 15 FUSEKIT_PHASED=on
done
python3 $d/ab.py $o rows general phased prefetch held | tee $o/table_rows.txt
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
