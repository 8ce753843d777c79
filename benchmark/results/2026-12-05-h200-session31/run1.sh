#!/usr/bin/env bash
# Call 1: every GPU suite on main (18d9e6b: session 30's review fixes, never run on a GPU, and
# session 31's sliced-rows knob with its new GPU case): both GEMM main loops, the older-target and
# plain sm_90 binaries, and memcheck on the split-K workspace cases.
#   OUT=... bash carry/s31/run1.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
for t in fusekit_test_core fusekit_test_older_target fusekit_test_plain_sm90 fusekit_test_gemm fusekit_test_reduce_gpu; do
  timeout 300 $B/$t > $o/$t.log 2>&1; echo "$t rc=$? $(grep -E 'test cases' $o/$t.log | tail -1) t=$SECONDS"
done
FUSEKIT_GEMM_PATH=portable timeout 240 $B/fusekit_test_gemm > $o/gemm_portable.log 2>&1
echo "gemm portable rc=$? $(grep -E 'test cases' $o/gemm_portable.log | tail -1) t=$SECONDS"
FUSEKIT_TEST_GUARD_BYTES=0 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/fusekit_test_gemm -tc='split workspace*,linear: split tiles in a CUDA graph*' > $o/memcheck_workspace.log 2>&1
echo "memcheck workspace rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_workspace.log) t=$SECONDS"
grep -h -B2 -A12 "ERROR:" $o/*.log | head -60
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
