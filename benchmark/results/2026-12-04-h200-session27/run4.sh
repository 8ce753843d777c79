#!/usr/bin/env bash
# Session 27 call 4: parameters of misaligned rows read as two aligned words (load_straddling): reduce GPU suite, memcheck/racecheck/synccheck
# on the sanitize set, A/B against HEAD (bc3011b) on the misaligned rows (N = 1537) and controls, ncu instruction counts of bf16 LayerNorm 37 x 1537.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/red/*.xz "$d"/red2/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/red/* $d/red2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call4; mkdir -p $o; SECONDS=0
T=$d/red2/fusekit_test_reduce_gpu
timeout 120 $T > $o/test_reduce.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_reduce.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_reduce.log | head -5
for tool in memcheck synccheck; do
timeout 120 compute-sanitizer --tool $tool $T -tc="rms_norm: strides*,layer_norm: weight*,rms_norm: MiniMax*,*same bits*" > $o/sanitize_$tool.log 2>&1; echo "$tool rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/sanitize_$tool.log
done
F='reduce/(softmax|rms_norm|layer_norm)/(f32|bf16)/(37x1537|5462x1537|2048x4096)/fusekit/gpu_throughput|h3_norm/.*/fusekit/gpu_throughput'
run() { timeout 100 $d/$2/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="$F" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out=$o/$1.json --benchmark_out_format=json > $o/$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 red; run new1 red2; run base2 red; run new2 red2
O=$o python3 $d/ab_reduce.py base1 new1 base2 new2 | tee $o/ab.txt
timeout 60 ncu --graph-profiling node --clock-control none -k 'regex:row_kernel' --launch-skip 5 --launch-count 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
  $d/red2/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="reduce/layer_norm/bf16/37x1537/fusekit/gpu_throughput" > $o/ncu_ln.txt 2>&1; echo "ncu rc=$? t=$SECONDS"; grep -E "inst_executed|duration" $o/ncu_ln.txt
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
