#!/usr/bin/env bash
# Session 29 call 3: wide swapped tiles (256 W rows x 160 tokens a CTA): GEMM suite with them among
# the forced tiles, memcheck and racecheck on the swapped-tile tests, then qkv_proj (and fc1) at
# 925 tokens on each tile, short (15 samples) and sustained (600), clocks sampled.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/wide/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/wide/*; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o; SECONDS=0
T=$d/wide/fusekit_test_gemm
timeout 240 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear: swapped tiles*,linear: strided*,QkvHeads*,linear_glu*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $o/samples.csv 2>&1 &
smi=$!
bash $d/cases.sh $d/wide/fusekit_bench_gemm $o $d/cases3.txt
kill $smi
python3 $d/clocks2.py $o | tee $o/clocks.txt
echo "t=$SECONDS"
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
