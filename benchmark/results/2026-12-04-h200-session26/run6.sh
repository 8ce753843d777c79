#!/usr/bin/env bash
# Session 26 call 6: the fix (every warp reconverges before a named barrier / __syncthreads): GEMM suite,
# synccheck + racecheck + memcheck on the swapped tiles and K segments, synccheck on a reduce case,
# A/B against 5ad3751 at 925 tokens, the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fix/*.xz "$d"/base/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/fix/*; export LD_LIBRARY_PATH=$d
o=$OUT/call6; mkdir -p $o; SECONDS=0
T=$d/fix/fusekit_test_gemm
timeout 90 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 100 compute-sanitizer --tool synccheck $T -tc='linear: swapped tiles*,linear: K segments*' > $o/synccheck_gemm.log 2>&1; echo "synccheck gemm rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck_gemm.log
grep -oE "\+0x[0-9a-f]+$" $o/synccheck_gemm.log | sort | uniq -c | head -5
timeout 100 compute-sanitizer --tool synccheck $d/base/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/synccheck_base.log 2>&1; echo "synccheck base (5ad3751) rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck_base.log; grep -oE "\+0x[0-9a-f]+$" $o/synccheck_base.log | sort | uniq -c | head -5
timeout 100 compute-sanitizer --tool racecheck --racecheck-report analysis $T -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/racecheck.log; grep -E "Race reported|access at" $o/racecheck.log | sed 's/void fusekit.*)+/+/' | head -6
timeout 60 compute-sanitizer --tool memcheck $T -tc='linear: swapped tiles*,out_proj: every*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
timeout 100 compute-sanitizer --tool synccheck $d/fix/fusekit_test_reduce_gpu -tc='rms_norm: fused*,softmax: all*' > $o/synccheck_reduce.log 2>&1; echo "synccheck reduce rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck_reduce.log; grep -oE "at [a-z_:]*.*\+0x[0-9a-f]+$" $o/synccheck_reduce.log | sed 's/<.*>//' | sort | uniq -c | head -5
run() { FUSEKIT_GEMM_TOKENS=925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 base; run fix1 fix; run base2 base; run fix2 fix
O=$o python3 $d/ab.py base1 fix1 base2 fix2 | tee $o/ab.txt
cd $d && OUT=$o/lr timeout 240 bash $d/h200_layer_report.sh $d/fix > $o/lr.log 2>&1; echo "layer report rc=$? t=$SECONDS"
grep -E "^ +[0-9]+ +[0-9]+ |FAILED|status" $o/lr.log | tail -26
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
