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
# (Its ncu block ran only as run4.sh: this call ran with NO_NCU=1, so the block is left out here.)
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
