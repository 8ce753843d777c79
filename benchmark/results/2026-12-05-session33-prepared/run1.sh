#!/usr/bin/env bash
# Session 33 (prepared on 2026-12-05 without a device) call 1: the bulk stores' GPU tests.
# wip/bulk-store's fusekit_test_gemm: the whole suite as is (its new StoreRows case compares the
# direct and bulk stores bit for bit on every tile kind), the whole suite with every StoreRows on
# the bulk stores, the plain linears on the portable main loop with bulk stores, then memcheck and racecheck of the new case (the bulk path) and memcheck of the
# sanitize set on the bulk stores.   OUT=... bash carry/s33/run1.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
T=$d/bulk/fusekit_test_gemm
timeout 240 $T > $o/test_gemm.log 2>&1; echo "test_gemm rc=$? $(grep 'test cases' $o/test_gemm.log) t=$SECONDS"
FUSEKIT_GEMM_STORE=bulk timeout 240 $T > $o/test_gemm_bulk.log 2>&1; echo "test_gemm bulk rc=$? $(grep 'test cases' $o/test_gemm_bulk.log) t=$SECONDS"
FUSEKIT_GEMM_PATH=portable FUSEKIT_GEMM_STORE=bulk timeout 150 $T -tc='StoreRows*,linear:*,linear_glu:*,linear_residual:*' > $o/test_gemm_portable_bulk.log 2>&1
echo "test_gemm portable bulk rc=$? $(grep 'test cases' $o/test_gemm_portable_bulk.log) t=$SECONDS"
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='StoreRows*' > $o/store_memcheck.log 2>&1
echo "store memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/store_memcheck.log) t=$SECONDS"
cases='linear:*,linear_glu:*,linear_residual:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
FUSEKIT_GEMM_STORE=bulk timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc="$cases" > $o/bulk_memcheck.log 2>&1
echo "bulk memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/bulk_memcheck.log) $(grep 'test cases' $o/bulk_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T -tc='StoreRows*' > $o/store_racecheck.log 2>&1
echo "store racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/store_racecheck.log | tail -1) t=$SECONDS"
grep -h -B2 -A12 "ERROR:\|FAILED" $o/*.log | head -40
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
