#!/usr/bin/env bash
# Forty-second session, call 29 (about 4 minutes): every row case of the three ops, main at the
# session's start (base/: 2fe6be1) against main at its end (new/: 0c1e579: the pair on cluster
# rows, the staged kernels' 128-bit stores, the fold in tiers, the phased rows of one phase), two
# runs alternating; on an H200, new/'s bandwidth cases with the copy ceilings (README's status row).
#   OUT=... bash benchmark/results/2026-12-06-session42/run29.sh carry/c29
set -u
source tools/ab_common.sh "${1:-carry/c29}"
o=$OUT/call29; mkdir -p $o; gpu_info $o
alternate rows 60 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/fusekit/gpu_throughput' 9 2 base new
cat $o/table_rows.txt
if grep -q H200 $o/gpu.txt; then
  MEASURE_CEILINGS=1 bench status_new 200 $d/new/fusekit_bench_reduce '^reduce_bw/.*/fusekit/gpu_throughput' 9
fi
cd $OUT && tar cJf call29.tar.xz call29 && rm -rf call29
