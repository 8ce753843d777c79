#!/usr/bin/env bash
# Forty-first session, call 22 (about 8 minutes): the call session 40 prepared, widened.
#   base/: main's reduce code (4d5cb8d, unchanged since);
#   sp/:   wip/softmax-pair 4e48f8d (softmax's (max, sum) pair in one exchange only for rows split
#          over a cluster, kSpansCluster);
#   b128/: main + f98bb2b (store_aligned's 16-byte stores through one 128-bit register, so ptxas
#          keeps them whole: the phased LayerNorm kernel's SASS had 28 STG.E where 7 STG.E.128 belong);
#   spb/:  the GPU test binary of sp/ + b128/ (wip/sp-b128 a4b093a), so one suite checks both.
# Every row case of the three ops, two runs alternating; spb/'s whole GPU suite; memcheck on
# softmax's -inf case and LayerNorm's block-means case; ncu's executed count of every SASS
# instruction of base/'s bf16 5462 x 1537 LayerNorm and RMSNorm (where LayerNorm's 2982 warp
# instructions a row go, against RMSNorm's 1900).
#   OUT=... bash benchmark/results/2026-12-06-session41/run22.sh carry/c22
set -u
source tools/ab_common.sh "${1:-carry/c22}"
o=$OUT/call22; mkdir -p $o; gpu_info $o
alternate rows 60 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/fusekit/gpu_throughput' 9 2 base sp b128
cat $o/table_rows.txt
suite test_spb 150 $d/spb/fusekit_test_reduce_gpu
sanitize memcheck memcheck_softmax_inf $d/spb/fusekit_test_reduce_gpu "softmax: all -inf*" 45
sanitize memcheck memcheck_ln_blocks $d/spb/fusekit_test_reduce_gpu "layer_norm: rows of far-apart*" 60
for op in layer_norm rms_norm; do
  ((SECONDS < 400)) && profile sass_counts_$op 45 $d/base/fusekit_bench_reduce \
    "^reduce_bw/$op/bf16/5462x1537/fusekit/gpu_throughput" --section SourceCounters --page source --print-source sass --csv
done
# On an H200 with time left: base/'s bandwidth cases with the copy ceilings measured (the README status row).
if grep -q H200 $o/gpu.txt && ((SECONDS < 430)); then
  MEASURE_CEILINGS=1 bench status_base 120 $d/base/fusekit_bench_reduce '^reduce_bw/.*/fusekit/gpu_throughput' 9
fi
cd $OUT && tar cJf call22.tar.xz call22 && rm -rf call22
