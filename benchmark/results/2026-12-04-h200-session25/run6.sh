#!/usr/bin/env bash
# Session 25 call 6: the landed hand-off (88 / 208): GEMM suite, racecheck and memcheck on the tests that run it.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/call6; mkdir -p $o; SECONDS=0
timeout 150 $d/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -5
timeout 170 compute-sanitizer --tool racecheck --racecheck-report hazard $d/fusekit_test_gemm -tc='linear: K segments*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "RACECHECK SUMMARY|hazard|test cases" $o/racecheck.log | tail -4
timeout 120 compute-sanitizer --tool memcheck $d/fusekit_test_gemm -tc='out_proj: every*,linear: K segments*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log | tail -3
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
