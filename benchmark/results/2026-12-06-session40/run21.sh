#!/usr/bin/env bash
# Fortieth session, call 21 (about 8 minutes): branch wip/softmax-pair at 5752902 (its softmax is ln/'s and ln2/'s: the code
# of next_run20.sh's e7e3841, rebased), wip/ln-moments at 17afc45 (ln/: pair/ plus LayerNorm's
# statistics in one exchange, threads' (count, sum, M2) combined pairwise, MomentsOp) and
# wip/ln-twostage at 5f3ddda (ln2/: the same merged in two steps, sums then M2s about the mean)
# against main 4d5cb8d's reduce code (base/) on the softmax and LayerNorm row cases, two runs
# alternating; the branches' softmax and LayerNorm GPU cases; memcheck on softmax's -inf case and
# LayerNorm's block-means case. On an H200, with time left, base/'s every row case and the
# size-matched copies (the README status row).
#   OUT=... bash benchmark/results/2026-12-06-session40/run21.sh carry/c21
set -u
source tools/ab_common.sh "${1:-carry/c21}"
o=$OUT/call21; mkdir -p $o; gpu_info $o
ROWS='^(reduce|reduce_bw)/(softmax|layer_norm)/.*/fusekit/gpu_throughput'
alternate rows 60 "$ROWS" 9 2 base ln ln2
cat $o/table_rows.txt
suite test_ln2 150 $d/ln2/fusekit_test_reduce_gpu "-tc=softmax*,layer_norm*"
# (ln/'s test binary left out: the carry limit)
sanitize memcheck memcheck_softmax_inf $d/ln2/fusekit_test_reduce_gpu "softmax: all -inf*" 45
sanitize memcheck memcheck_ln2_blocks $d/ln2/fusekit_test_reduce_gpu "layer_norm: rows of far-apart*" 60
# Where LayerNorm's mid rows spend their issue slots: one launch each under ncu.
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers
for spec in base:layer_norm/bf16/5462x1537 ln2:layer_norm/bf16/5462x1537 base:rms_norm/bf16/5462x1537 \
            base:layer_norm/bf16/1024x8192 ln2:layer_norm/bf16/1024x8192; do
  label=${spec%%:*} case=${spec#*:}
  ((SECONDS < 480)) && timeout 30 ncu --clock-control none --metrics $M -k regex:row_kernel --launch-skip 5 --launch-count 1 \
    $d/$label/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=1 \
    --benchmark_filter="^reduce_bw/$case/fusekit/gpu_throughput" > $o/ncu_${label}_${case//\//_}.txt 2>&1
done
if grep -q H200 $o/gpu.txt && ((SECONDS < 400)); then
  bench status_base 60 $d/base/fusekit_bench_reduce '^(reduce|reduce_bw)/.*/fusekit/gpu_throughput' 9
  bench status_copy 60 $d/base/fusekit_bench_reduce '^(reduce|reduce_bw)/.*/copy/gpu_throughput' 9
fi
cd $OUT && tar cJf call21.tar.xz call21 && rm -rf call21
