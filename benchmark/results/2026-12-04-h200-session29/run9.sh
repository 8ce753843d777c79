#!/usr/bin/env bash
# Session 29 call 9: the Glu node eight columns an item (new/) against 1222e01 (head/): GLU and
# fc1 tests, memcheck on the GLU tests, fc1 at 925 tokens alternating twice (15 samples), the
# layer report on new.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/new/*; export LD_LIBRARY_PATH=$d
o=$OUT/call9; mkdir -p $o; SECONDS=0
T=$d/new/fusekit_test_gemm
timeout 60 $T -tc='linear_glu*,fc1_swiglu*' > $o/test_glu.log 2>&1; echo "glu tests rc=$? $(grep -E 'test cases|assertions' $o/test_glu.log | tr '\n' ' ') t=$SECONDS"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear_glu*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
for r in 1 2; do for v in head new; do
  FUSEKIT_GEMM_TOKENS=925,70 timeout 40 $d/$v/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/fc1/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_${v}$r.json --benchmark_out_format=json > $o/bench_${v}$r.txt 2>&1
done; done
O=$o python3 $d/ab.py head1 new1 head2 new2 | tee $o/ab.txt
echo "t=$SECONDS"
mkdir -p $o/layer && OUT=$o/layer timeout 150 bash $d/h200_layer_report.sh $d/new > $o/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
grep -E "^ +[0-9]+ +(70|925) " $o/layer/layer_report.log
cd $OUT && tar cJf call9.tar.xz call9 && rm -rf call9
