#!/usr/bin/env bash
# Prepared in the fortieth session (its device time ran out before it ran; about 4 minutes): branch wip/softmax-pair at 4e48f8d (sp/: softmax's
# (max, sum) pair in one exchange only for rows split over a cluster, kSpansCluster) against main
# 4d5cb8d's reduce code (base/) on the softmax row cases, two runs alternating; sp/'s softmax
# GPU cases and the new block-means LayerNorm case (42defa0, main's LayerNorm code);
# memcheck on softmax's -inf case.
#   OUT=... bash benchmark/results/2026-12-06-session40/next_run22.sh carry/c22
set -u
source tools/ab_common.sh "${1:-carry/c22}"
o=$OUT/call22; mkdir -p $o; gpu_info $o
alternate rows 40 '^(reduce|reduce_bw)/softmax/.*/fusekit/gpu_throughput' 9 2 base sp
cat $o/table_rows.txt
suite test_sp 110 $d/sp/fusekit_test_reduce_gpu "-tc=softmax*,layer_norm: rows of far-apart*"
sanitize memcheck memcheck_softmax_inf $d/sp/fusekit_test_reduce_gpu "softmax: all -inf*" 45
# Where LayerNorm's 2982 warp instructions a row go (call 21's ncu), against RMSNorm's 1900: the
# executed count of every SASS instruction of one launch each (base/).
for op in layer_norm rms_norm; do
  ((SECONDS < 150)) && profile sass_counts_$op 60 $d/base/fusekit_bench_reduce \
    "^reduce_bw/$op/bf16/5462x1537/fusekit/gpu_throughput" --section SourceCounters --page source --print-source sass --csv
done
cd $OUT && tar cJf call22.tar.xz call22 && rm -rf call22
