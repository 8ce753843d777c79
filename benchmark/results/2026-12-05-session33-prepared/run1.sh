#!/usr/bin/env bash
# Session 33 (prepared on 2026-12-05 without a device) call 1: the bulk stores' GPU tests.
# wip/bulk-store's fusekit_test_gemm: the whole suite as is (its two StoreRows cases compare the
# direct and bulk stores bit for bit on every kernel that runs an epilogue, the portable one
# included), the whole suite with every StoreRows on the bulk stores, then memcheck of both
# StoreRows cases and racecheck of the whole-tile one (ring staging, the 160-token tiles' 96-thread
# hand-off, the consumers' own epilogues, the portable kernel).   OUT=... bash carry/s33/run1.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
T=$d/bulk/fusekit_test_gemm
timeout 240 $T > $o/test_gemm.log 2>&1; echo "test_gemm rc=$? $(grep 'test cases' $o/test_gemm.log) t=$SECONDS"
FUSEKIT_GEMM_STORE=bulk timeout 240 $T > $o/test_gemm_bulk.log 2>&1; echo "test_gemm bulk rc=$? $(grep 'test cases' $o/test_gemm_bulk.log) t=$SECONDS"
export FUSEKIT_TEST_GUARD_BYTES=0
for c in whole K-segment; do
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc="StoreRows*on $c*" > $o/memcheck_$c.log 2>&1
  echo "memcheck $c rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_$c.log) $(grep 'test cases' $o/memcheck_$c.log) t=$SECONDS"
done
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T -tc='StoreRows*on whole*' > $o/racecheck_whole.log 2>&1
echo "racecheck whole rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/racecheck_whole.log | tail -1) $(grep 'test cases' $o/racecheck_whole.log) t=$SECONDS"
grep -h -B2 -A12 "ERROR:\|FAILED" $o/*.log | head -40
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
