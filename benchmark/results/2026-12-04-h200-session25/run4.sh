#!/usr/bin/env bash
# Session 25 call 4: the hand-off with the register split fixed (96 / 200): A/B at 925 tokens, GEMM suite, timeline.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/new/* $d/tl2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call4; mkdir -p $o; SECONDS=0
run() { FUSEKIT_GEMM_TOKENS=925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run new1 new
if grep -q "qkv_proj" $o/bench_new1.json 2>/dev/null; then
  run base1 base; run base2 base; run new2 new
  O=$o python3 $d/ab.py base1 new1 base2 new2 | tee $o/ab.txt
fi
grep -h "fusekit-bench" $o/bench_new1.txt | cut -c1-140
timeout 150 $d/new/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -5
timeout 60 $d/tl2/timeline > $o/timeline_new.txt 2>&1; echo "tl rc=$? t=$SECONDS"
grep -h "mean over\|==" $o/timeline_new.txt
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
