#!/usr/bin/env bash
# Session 25 call 7: every epilogue thread releases the staging tile itself: suite, racecheck on the swapped-tile test, 925 A/B.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/call7; mkdir -p $o; SECONDS=0
timeout 60 $d/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 80 compute-sanitizer --tool racecheck --racecheck-report hazard $d/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "RACECHECK SUMMARY|test cases" $o/racecheck.log | tail -3; grep -c "hazard detected" $o/racecheck.log
FUSEKIT_GEMM_TOKENS=925 timeout 30 $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_final.json --benchmark_out_format=json > $o/bench_final.txt 2>&1; echo "bench rc=$? t=$SECONDS"
grep -h "fusekit-bench" $o/bench_final.txt | cut -c1-120
cd $OUT && tar cJf call7.tar.xz call7 && rm -rf call7
