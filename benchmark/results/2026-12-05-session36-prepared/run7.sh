#!/usr/bin/env bash
# Prepared in the thirty-sixth session for the next device session: wip/row-helpers (helpers/,
# b7dfdef's binaries) on an H200 in one call (about 8 minutes): the A/B against main's row code
# (base/) on every row case, twice alternating; the whole reduce GPU suite; memcheck (no guard
# bytes) and racecheck on the helpers case (the helpers read the owners' warp partials).
# Carry: carry/s36/{common.sh,run7.sh,ab.py}, carry/s36/base, carry/s36/helpers.
#   OUT=... bash carry/s36/run7.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call7; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do
  for b in base helpers; do bench rows_${b}_$r 60 $d/$b/fusekit_bench_reduce "$ALL" 9; done
done
python3 $d/ab.py $o rows base helpers | tee $o/table_rows.txt | awk 'NR==1 || /37x1537|tokens=925/'
T=$d/helpers/fusekit_test_reduce_gpu
timeout 250 $T > $o/test_reduce_helpers.log 2>&1
echo "tests rc=$? $(grep 'test cases' $o/test_reduce_helpers.log) t=$SECONDS"
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc="*write helpers*" > $o/memcheck_helpers.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_helpers.log | tail -1) $(grep 'test cases' $o/memcheck_helpers.log) t=$SECONDS"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $T -tc="*write helpers*" > $o/racecheck_helpers.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/racecheck_helpers.log | tail -1) $(grep 'test cases' $o/racecheck_helpers.log) t=$SECONDS"
cd $OUT && tar cJf call7.tar.xz call7 && rm -rf call7
