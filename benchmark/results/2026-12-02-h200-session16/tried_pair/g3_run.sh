#!/usr/bin/env bash
# Session 16 call g3: CTA pairs for few-row K-segmented calls (kernel_sm90_pair.hpp), forced.
# GPU suite, sanitizers on the K-segment and overlap tests, then out_proj / fc2 at 70 and 37
# tokens: automatic (the split narrow kernel) against pairs, alternating twice, and pairs with
# the early weight loads.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin3/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin3/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g3}; mkdir -p $o; SECONDS=0
timeout 170 $d/fin3/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fin3/fusekit_test_gemm -tc='linear: K segments*,linear: launched over*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
grep -m3 "Invalid\|Error" $o/sanitize_memcheck.log
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fin3/fusekit_test_gemm -tc='linear: launched over*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep "Race reported" $o/sanitize_racecheck.log | head -3
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_SEGMENT_TILES=$2 FUSEKIT_GRID_OVERLAP=${3:-prologue} timeout 60 $d/fin3/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run auto$i automatic; run pair$i pair; done
run pairw pair weights; run autow automatic weights
O=$o python3 $d/ab.py auto1 pair1 auto2 pair2 autow pairw | tee $o/ab.txt
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-g3}.tgz ${CALL:-g3}
