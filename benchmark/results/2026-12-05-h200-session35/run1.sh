#!/usr/bin/env bash
# Session 35 call 1 (H200): main's row kernels (phased merged) on every row case, and the register
# rows' layout at 2, 4 and 8 vectors a thread (FUSEKIT_ROW_VPT) on the bf16 one-CTA rows, then
# LayerNorm's one-FMA normalize (fma/) against main, then ncu source counters of bf16 LayerNorm
# 37 x 1537 and RMSNorm 5462 x 1537.  OUT=... bash carry/s35/run1.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
B=$d/vpt/fusekit_bench_reduce
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
ONE='^((reduce|reduce_bw)/.*/bf16/(37x1537|256x3072|768x6144|1024x4096|8192x1024|5462x1537|2048x4096|1561x5376|1024x8192)|h3_norm/.*)/fusekit/gpu_throughput'
bench rows_main_1 120 $B "$ALL" 9
bench rows_copy_1 60 $B '^((reduce|reduce_bw)/.*|h3_norm/.*)/copy/gpu_throughput' 9
for r in 1 2; do
  bench vpt_auto_$r 50 $B "$ONE" 9
  for v in 2 4 8; do bench vpt_v${v}_$r 50 $B "$ONE" 9 FUSEKIT_ROW_VPT=$v; done
done
python3 $d/ab.py $o vpt auto v2 v4 v8 | tee $o/table_vpt.txt
LN='^(reduce|reduce_bw)/layer_norm/.*/fusekit/gpu_throughput'
for r in 1 2; do bench ln_main_$r 40 $B "$LN" 9; bench ln_fma_$r 40 $d/fma/fusekit_bench_reduce "$LN" 9; done
python3 $d/ab.py $o ln main fma | tee $o/table_ln.txt
cd $OUT && tar cJf call1a.tar.xz call1 && cd - > /dev/null
for c in "layer_norm/bf16/37x1537" "rms_norm/bf16/5462x1537"; do
  n=$(echo $c | tr / _)
  timeout 90 ncu --graph-profiling node --clock-control none -k 'regex:row_kernel' --launch-skip 5 --launch-count 1 --set full --import-source no -f -o $o/$n \
    $B --require-gpu --skip-ceilings --benchmark_filter="/$c/fusekit/gpu_throughput" > $o/ncu_${n}_run.txt 2>&1; echo "ncu $n rc=$? t=$SECONDS"
  ncu -i $o/$n.ncu-rep --page source --print-source sass --csv > $o/${n}_src.csv 2> $o/${n}_src.err
  ncu -i $o/$n.ncu-rep --page details > $o/${n}_details.txt 2>&1
  grep -E "Duration|Registers Per|Block Size|Grid Size|Achieved Occupancy|Executed Ipc A|Warp Cycles Per Issued" $o/${n}_details.txt | head -9
  rm -f $o/$n.ncu-rep; xz $o/${n}_src.csv
done
cd $OUT && rm -f call1a.tar.xz && tar cJf call1.tar.xz call1 && rm -rf call1
