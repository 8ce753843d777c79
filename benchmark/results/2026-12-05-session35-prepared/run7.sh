#!/usr/bin/env bash
# Prepared in the thirty-fifth session: racecheck of wip/row-barriers (bar/: a named barrier a
# row) on the phased and strided row cases. Carry: carry/s35/{common.sh,run7.sh},
# carry/s35/bar/fusekit_test_reduce_gpu.xz, carry/s33/libbenchmark.so.1debian.  OUT=... bash carry/s35/run7.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call7; mkdir -p $o; gpu_info $o
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 540 compute-sanitizer --tool racecheck --error-exitcode 9 $d/bar/fusekit_test_reduce_gpu \
  -tc="*phased and general*,rms_norm: strides*" > $o/reduce_racecheck_bar.log 2>&1
echo "bar racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/reduce_racecheck_bar.log | tail -1) $(grep 'test cases' $o/reduce_racecheck_bar.log) t=$SECONDS"
cd $OUT && tar cJf call7.tar.xz call7 && rm -rf call7
