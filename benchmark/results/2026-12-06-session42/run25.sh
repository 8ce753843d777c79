#!/usr/bin/env bash
# Forty-second session, call 25. The forty-first session's branches did not survive into this
# checkout; their code was written again (branch wip/pair-b128 73ad139: softmax's (max, sum) pair in
# one exchange on rows over a cluster, the staged kernels' stores through one 128-bit register, the
# masked-tail softmax and block-means LayerNorm cases; branch wip/fold-four: the same plus the
# cross-warp fold in tiers of 4, 8, 16 and 32 warps).
#   base/: main 2fe6be1's reduce code; new/: wip/pair-b128 (bench and GPU tests); fold/: wip/fold-four.
# Step ab (about 4 minutes): the shapes the changes touch, three builds, two runs alternating.
# Step suite (about 4 minutes): new/'s whole GPU suite. Step check: memcheck on the two new cases,
# and on an H200 new/'s bandwidth cases with the copy ceilings (the README status row).
#   OUT=... bash benchmark/results/2026-12-06-session42/run25.sh carry/c25 ab|suite|check
set -u
source tools/ab_common.sh "${1:-carry/c25}"
step=${2:-ab}
o=$OUT/call25_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    alternate rows 40 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/(37x1537|5462x1537|1024x4096|2048x4096|512x16384|128x65536|8x262144|32x262144)/fusekit/gpu_throughput' 9 2 base new fold
    cat $o/table_rows.txt ;;
  suite)
    suite test_new 330 $d/new/fusekit_test_reduce_gpu ;;
  check)
    sanitize memcheck memcheck_softmax_inf $d/new/fusekit_test_reduce_gpu "softmax: all -inf*" 150
    sanitize memcheck memcheck_ln_blocks $d/new/fusekit_test_reduce_gpu "layer_norm: rows of +-1e3*" 150
    if grep -q H200 $o/gpu.txt && ((SECONDS < 300)); then
      MEASURE_CEILINGS=1 bench status_new 200 $d/new/fusekit_bench_reduce '^reduce_bw/.*/fusekit/gpu_throughput' 9
    fi ;;
esac
cd $OUT && tar cJf call25_$step.tar.xz call25_$step && rm -rf call25_$step
