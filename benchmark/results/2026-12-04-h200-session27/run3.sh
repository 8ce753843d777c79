#!/usr/bin/env bash
# Session 27 call 3: the 37-row seed shapes (issue #2: <= 3 us) on HEAD, and ncu source counters of bf16 LayerNorm and RMSNorm 37 x 1537.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/red/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/red/*; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o; SECONDS=0
B=$d/red/fusekit_bench_reduce
for i in 1 2; do timeout 60 $B --require-gpu --skip-ceilings --benchmark_filter="reduce/.*/37x1537/(fusekit|plain|copy)/gpu_(throughput|latency)" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out=$o/seed37_$i.json --benchmark_out_format=json > $o/seed37_$i.txt 2>&1; echo "seed37 $i rc=$? t=$SECONDS"; done
grep -E "median" $o/seed37_1.txt | awk '{print $1, $2, $3}' | sed 's/_median//'
for op in layer_norm rms_norm softmax; do
timeout 120 ncu --graph-profiling node --clock-control none -k 'regex:row_kernel' --launch-skip 5 --launch-count 1 --set full --import-source no -f -o $o/${op} \
  $B --require-gpu --skip-ceilings --benchmark_filter="reduce/$op/bf16/37x1537/fusekit/gpu_throughput" > $o/ncu_${op}_run.txt 2>&1; echo "ncu $op rc=$? t=$SECONDS"
ncu -i $o/${op}.ncu-rep --page source --print-source sass --csv > $o/${op}_src.csv 2> $o/${op}_src.err; echo "src rc=$? $(wc -l < $o/${op}_src.csv)"
ncu -i $o/${op}.ncu-rep --page details > $o/${op}_details.txt 2>&1
grep -E "Duration|Registers Per|Block Size|Grid Size|Achieved Occupancy|Executed Ipc A|Warp Cycles Per Issued" $o/${op}_details.txt | head -9
rm -f $o/${op}.ncu-rep; xz $o/${op}_src.csv
done
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
