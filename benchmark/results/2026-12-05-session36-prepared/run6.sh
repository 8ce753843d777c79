#!/usr/bin/env bash
# Thirty-sixth session: the fixed helpers case (row_write_helpers() set on before each shape's
# check) on the helpers build, then memcheck on it. Carry: carry/s36/{common.sh,run6.sh},
# carry/s36/base, carry/s36/helpers/fusekit_test_reduce_gpu.xz.   OUT=... bash carry/s36/run6.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call7; mkdir -p $o; gpu_info $o
T=$d/helpers/fusekit_test_reduce_gpu
timeout 40 $T -tc="*write helpers*" > $o/test_helpers.log 2>&1
echo "tests rc=$? $(grep 'test cases' $o/test_helpers.log) t=$SECONDS"
FUSEKIT_TEST_GUARD_BYTES=0 timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc="*write helpers*" > $o/memcheck_helpers.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_helpers.log | tail -1) $(grep 'test cases' $o/memcheck_helpers.log) t=$SECONDS"
