#!/usr/bin/env bash
# Session 33 call 4: the row sanitize set's racecheck, which ran out of its 120 s in the
# thirty-second session (the row kernels' shared-memory code is main's in rowstore/: that branch
# changes only global stores). 280 s, then synccheck.   OUT=... bash carry/s33/run4.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call4; mkdir -p $o; gpu_info $o
T=$d/rowstore/fusekit_test_reduce_gpu
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 280 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*" > $o/reduce_racecheck.log 2>&1
echo "reduce racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/reduce_racecheck.log | tail -1) $(grep 'test cases' $o/reduce_racecheck.log) t=$SECONDS"
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
