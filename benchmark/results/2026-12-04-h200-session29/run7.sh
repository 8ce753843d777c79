#!/usr/bin/env bash
# Session 29 call 7: Epilogue skips the nodes these Params make no-ops (a null bias, the identity
# activation) and their barriers (new/) against 1222e01 (head/): GEMM suite and memcheck on new,
# then 925-token medians of every linear, fused / bare / cuBLASLt, the two builds alternating
# twice (15 samples), fc1 and out_proj sustained (600), and the layer report on new.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/new/*; export LD_LIBRARY_PATH=$d
o=$OUT/call7; mkdir -p $o; SECONDS=0
T=$d/new/fusekit_test_gemm
timeout 150 $T > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|failed" $o/test_gemm.log | head -10
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc='linear: bias*,linear_glu*,linear_residual*,linear: identity*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 $T -tc='linear: bias*,linear_glu*,linear_residual*,linear: swapped tiles*' > $o/synccheck.log 2>&1; echo "synccheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/synccheck.log
for r in 1 2; do for v in head new; do
  FUSEKIT_GEMM_TOKENS=925 timeout 90 $d/$v/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_${v}$r.json --benchmark_out_format=json > $o/bench_${v}$r.txt 2>&1
done; done
O=$o python3 $d/ab.py head1 new1 head2 new2 | tee $o/ab.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $o/samples.csv 2>&1 &
smi=$!
while read -r line; do
  echo "$line" > $o/one.txt
  case "$line" in new_*) b=$d/new/fusekit_bench_gemm;; *) b=$d/head/fusekit_bench_gemm;; esac
  bash $d/cases.sh $b $o $o/one.txt
done < $d/cases7.txt
kill $smi
python3 $d/clocks2.py $o | tee $o/clocks.txt; xz $o/samples.csv; rm -f $o/one.txt
echo "t=$SECONDS"
mkdir -p $o/layer && OUT=$o/layer timeout 200 bash $d/h200_layer_report.sh $d/new > $o/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
grep -E "^ +[0-9]+ +(70|925) " $o/layer/layer_report.log
cd $OUT && tar cJf call7.tar.xz call7 && rm -rf call7
