#!/usr/bin/env bash
# Session 22 call 2: thin tiles in clusters (token boxes multicast), C = 4 in b2's binaries.
# GPU suite, sanitizers on the K-segment and overlap tests, then out_proj / fc2 at 37 and 70
# tokens: narrow (the previous automatic) against thin with clusters of 4, 2 and 1, alternating
# twice, both default kinds in the `weights` overlap mode; then the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd); b=$d/b2
for f in "$b"/*.xz "$b"/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$b"/fusekit_* "$b"/bench_* "$b"/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
timeout 200 $b/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $b/fusekit_test_gemm -tc='linear: K segments*,linear: launched over*,out_proj: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
grep -m3 "Invalid\|Error" $o/sanitize_memcheck.log
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $b/fusekit_test_gemm -tc='linear: launched over*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep -m3 "Race reported\|Error" $o/sanitize_racecheck.log
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_SEGMENT_TILES=$3 FUSEKIT_GRID_OVERLAP=${4:-prologue} timeout 60 $b/$2 --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run narrow$i fusekit_bench_gemm narrow; run thin4_$i fusekit_bench_gemm thin; run thin2_$i bench_c2 thin; run thin1_$i bench_c1 thin; done
run narroww fusekit_bench_gemm narrow weights; run thin4w fusekit_bench_gemm thin weights
O=$o python3 $d/ab.py narrow1 thin4_1 thin2_1 thin1_1 narrow2 thin4_2 thin2_2 thin1_2 narroww thin4w | tee $o/ab.txt
OUT=$o/lr timeout 330 bash $d/h200_layer_report.sh $b/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar cJf call2.tar.xz call2
