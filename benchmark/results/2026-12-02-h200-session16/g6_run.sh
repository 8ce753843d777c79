#!/usr/bin/env bash
# Session 16 call g6: main's test build after the review fixes (the K-segment test also compares
# f32 outputs bitwise): GPU suite, then racecheck on the K-segment test (every tile kind, the
# swapped 160-token tiles folding K segments included).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin6/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin6/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g6}; mkdir -p $o; SECONDS=0
timeout 100 $d/fin6/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fin6/fusekit_test_gemm -tc='linear: K segments*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep "Race reported" $o/sanitize_racecheck.log | head -3
cd $OUT && tar czf ${CALL:-g6}.tgz ${CALL:-g6}
