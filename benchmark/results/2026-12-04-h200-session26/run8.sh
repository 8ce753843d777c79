#!/usr/bin/env bash
# Session 26 call 8: the CTA's last 160-token tile run by the consumers alone (aligned barriers everywhere): GEMM suite, synccheck / racecheck /
# memcheck, the h200_gemm.sh sanitize set under synccheck, A/B against 5ad3751 at 70 and 925 tokens, layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin/*.xz "$d"/base/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/fin/*; export LD_LIBRARY_PATH=$d
o=$OUT/call8; mkdir -p $o; SECONDS=0
T=$d/fin/fusekit_test_gemm
timeout 90 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 100 compute-sanitizer --tool synccheck $T -tc='linear: swapped tiles*,linear: K segments*' > $o/synccheck_gemm.log 2>&1; echo "synccheck swapped+segments rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck_gemm.log
timeout 100 compute-sanitizer --tool racecheck --racecheck-report analysis $T -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/racecheck.log; grep -E "Race reported|access at" $o/racecheck.log | sed 's/void fusekit.*)+/+/' | head -6
timeout 60 compute-sanitizer --tool memcheck $T -tc='linear: swapped tiles*,out_proj: every*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 150 compute-sanitizer --tool synccheck $T -tc="$cases" > $o/synccheck_set.log 2>&1; echo "synccheck sanitize set rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck_set.log
run() { FUSEKIT_GEMM_TOKENS=70,925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 base; run fin1 fin; run base2 base; run fin2 fin
O=$o python3 $d/ab.py base1 fin1 base2 fin2 | tee $o/ab.txt
cd $d && OUT=$o/lr timeout 200 bash $d/h200_layer_report.sh $d/fin > $o/lr.log 2>&1; echo "layer report rc=$? t=$SECONDS"
grep -E "^ +[0-9]+ +(70|925) |FAILED|status" $o/lr.log | tail -26
cd $OUT && tar cJf call8.tar.xz call8 && rm -rf call8
