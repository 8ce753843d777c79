#!/usr/bin/env bash
# Session 15 call g7: racecheck on the small epilogue tests, which run on every tile height
# (on_every_tile: automatic, 160 and 232 tokens), on g6's test build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
[ -f $d/fin/fusekit_test_gemm ] || xz -d -k -f $d/fin/fusekit_test_gemm.xz; chmod +x $d/fin/fusekit_test_gemm
o=$OUT/g7; mkdir -p $o; SECONDS=0
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='linear_glu: both*,linear_residual: plain*,linear: bias*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep "Race reported" $o/sanitize_racecheck.log | head -5
cd $OUT && tar czf g7.tgz g7
