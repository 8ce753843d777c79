#!/usr/bin/env bash
# Session 28 call 9: test_glu.cu with its inputs and reference in one helper (GluCall): the GLU and
# fc1 tests, and memcheck on the GLU tests.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/glu/fusekit_test_gemm.xz; chmod +x $d/glu/*
o=$OUT/call9; mkdir -p $o
T=$d/glu/fusekit_test_gemm
timeout 120 $T -tc='linear_glu*,fc1_swiglu*' > $o/test_glu.log 2>&1; echo "glu rc=$?"; grep -E "test cases|assertions" $o/test_glu.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear_glu*' > $o/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
