#!/usr/bin/env bash
# Session 26 call 10: the review's refactor (stage_and_finish derives its group): GEMM suite, synccheck and racecheck on the swapped tiles.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/ref/fusekit_test_gemm.xz; chmod +x $d/ref/fusekit_test_gemm; T=$d/ref/fusekit_test_gemm
o=$OUT/call10; mkdir -p $o; SECONDS=0
timeout 90 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 60 compute-sanitizer --tool synccheck $T -tc='linear: swapped tiles*,linear: K segments*' > $o/synccheck.log 2>&1; echo "synccheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck.log
timeout 60 compute-sanitizer --tool racecheck --racecheck-report analysis $T -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/racecheck.log
cd $OUT && tar cJf call10.tar.xz call10 && rm -rf call10
