#!/usr/bin/env bash
# Prepared in the thirty-seventh session for the next device session (about 5 minutes): branch
# wip/wide-params (wide/: the wide layout's 16-bit kernels, N 8193-16384, read their parameters at
# the store: 80 registers against 100 / 128, 3 CTAs an SM against 2) against main 3410c12 (main/) on
# the bf16 row cases (512 x 16384 takes the wide layout), two runs alternating; then wide's RMSNorm
# and LayerNorm GPU cases (N = 16384 among their sizes and layouts).
# Carry: carry/s38 (main/, wide/, libbenchmark.so.1debian).
#   OUT=... bash benchmark/results/2026-12-05-session37/next_run15.sh carry/s38
set -u
source tools/ab_common.sh "${1:-carry/s38}"
o=$OUT/call15; mkdir -p $o; gpu_info $o
SEL='^(reduce|reduce_bw)/[a-z_]+/bf16/.*/fusekit/gpu_throughput'
alternate rows 60 "$SEL" 9 2 main wide
awk 'NR==1 || /16384/' $o/table_rows.txt
suite test_norms_wide 250 $d/wide/fusekit_test_reduce_gpu "-tc=rms_norm*,layer_norm*"
cd $OUT && tar cJf call15.tar.xz call15 && rm -rf call15
