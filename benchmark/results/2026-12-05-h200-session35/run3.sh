#!/usr/bin/env bash
# Session 35 call 3 (H200): racecheck of the phased kernels' two GPU cases (new in the thirty-
# fourth session, never racechecked) on main.  OUT=... bash carry/s35/run3.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call3; mkdir -p $o; gpu_info $o
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 330 compute-sanitizer --tool racecheck --error-exitcode 9 $d/main/fusekit_test_reduce_gpu \
  -tc="*phased and general*" > $o/reduce_racecheck_phased.log 2>&1
echo "phased racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/reduce_racecheck_phased.log | tail -1) $(grep 'test cases' $o/reduce_racecheck_phased.log) t=$SECONDS"
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
