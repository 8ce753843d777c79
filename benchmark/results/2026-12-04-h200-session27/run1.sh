#!/usr/bin/env bash
# Session 27 call 1: 160-token swapped tiles in CTA pairs sharing the tokens' copies (multicast):
# GEMM suite, synccheck / racecheck / memcheck on the swapped tiles, A/B pairs on vs off (FUSEKIT_SWAPPED_PAIRS) at 925 tokens, cuBLASLt.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/new/*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
T=$d/new/fusekit_test_gemm
timeout 100 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
timeout 100 compute-sanitizer --tool synccheck $T -tc='linear: swapped tiles*,linear: K segments*' > $o/synccheck.log 2>&1; echo "synccheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck.log
timeout 100 compute-sanitizer --tool racecheck --racecheck-report analysis $T -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/racecheck.log
timeout 80 compute-sanitizer --tool memcheck $T -tc='linear: swapped tiles*,out_proj: every*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
run() { FUSEKIT_SWAPPED_PAIRS=$2 FUSEKIT_GEMM_TOKENS=925 timeout 60 $d/new/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare$3)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run off1 off "|cublaslt"; run on1 on ""; run off2 off ""; run on2 on ""
O=$o python3 $d/ab.py off1 on1 off2 on2 | tee $o/ab.txt
grep -E "cublaslt" $o/bench_off1.txt | awk '{print $1, $2, $3}'
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
