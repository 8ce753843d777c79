#!/usr/bin/env bash
# Session 29 call 1: clocks and power under each 925-token GEMM. Each case is its own process
# (--samples=600: about 1.2 s of back-to-back calls), normal weights (std 1/sqrt(K), the
# benchmark's) and random-bit weights (the layer report's fixture), nvidia-smi sampling every
# 20 ms beside it; then the layer report with the same sampler.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > $o/smi_q_before.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv,noheader -lms 20 > $o/samples.csv 2>&1 &
smi=$!
B=$d/head/fusekit_bench_gemm
for data in normal bits; do
  for lin in qkv_proj out_proj fc1 fc2; do
    for impl in fusekit fusekit_bare cublaslt; do
      t0=$(date +%s.%N)
      FUSEKIT_BENCH_WEIGHTS=$data FUSEKIT_GEMM_TOKENS=925 timeout 60 $B --require-gpu --skip-ceilings --samples=600 \
        --benchmark_filter="^gemm/$lin/bf16/tokens=925/$impl/gpu_throughput\$" --benchmark_out=$o/bench_${data}_${lin}_${impl}.json \
        --benchmark_out_format=json > $o/bench_${data}_${lin}_${impl}.txt 2>&1
      echo "$data $lin $impl $t0 $(date +%s.%N) rc=$?" >> $o/windows.txt
    done
  done
  echo "$data done t=$SECONDS"
done
mkdir -p $o/layer && OUT=$o/layer timeout 200 bash $d/h200_layer_report.sh $d/head > $o/layer/run.log 2>&1; echo "layer rc=$? t=$SECONDS"
kill $smi
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > $o/smi_q_after.txt 2>&1
python3 $d/clocks.py $o | tee $o/clocks.txt
grep -E " 925 | 70 " $o/layer/layer_report.log
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
