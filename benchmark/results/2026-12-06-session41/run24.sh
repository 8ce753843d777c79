#!/usr/bin/env bash
# Forty-first session, call 24 (about 6 minutes): branch wip/softmax-pair-staged-b128 at 26cf34d
# (new/: softmax's pair on rows over a cluster with across_warps addressed as before (c213d21: the
# bf16 softmax general kernel back at 40 registers), and the staged kernels' whole stores through
# one 128-bit register (26cf34d)) against main's reduce code (base/) on the shapes the two changes
# touch or could touch (37 x 1537, 5462 x 1537, 1024 and 2048 x 4096, 512 x 16384, 128 x 65536, 8 and
# 32 x 262144), two runs alternating, after new/'s whole GPU suite.
# fold/: branch wip/fold-four 043a00a (main + the cross-warp fold in tiers of 4, 8, 16, 32 warps: a
# 4-warp row, N = 1537, skips 4 predicated loads and adds an exchange; the same order, so the same
# bits by construction): timed only here; before it merges it needs its own GPU suite and a rebase
# onto the pair's reducer).
# (carry/c24/new/ was built from the same headers before the branch was rebased onto main b22ad1c.)
#   OUT=... bash benchmark/results/2026-12-06-session41/run24.sh carry/c24
set -u
source tools/ab_common.sh "${1:-carry/c24}"
o=$OUT/call24; mkdir -p $o; gpu_info $o
suite test_new 240 $d/new/fusekit_test_reduce_gpu
alternate rows 40 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/(37x1537|5462x1537|1024x4096|2048x4096|512x16384|128x65536|8x262144|32x262144)/fusekit/gpu_throughput' 9 2 base new fold
cat $o/table_rows.txt
cd $OUT && tar cJf call24.tar.xz call24 && rm -rf call24
