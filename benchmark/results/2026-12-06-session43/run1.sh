#!/usr/bin/env bash
# Forty-third session, call 1. base/: main 1d09573. new/: the aligned kernels of warp rows, several
# a CTA, share their parameters through shared memory (CtaRows::sharing) in place of holding them
# row by row; the phased ones' share loop dealt over the rows. min6/: new/ built with
# -DFUSEKIT_ROW_LN_MIN_CTAS=6 (LayerNorm's 16-bit warp-row kernels bounded to 6 CTAs an SM: 40
# registers). newall/, min6all/: the same binaries with FUSEKIT_SHARE_PARAMS=always (CTAs of one row stage
# their parameters in shared memory too). Steps:
#   ab (about 6 minutes): the norms on the rows these touch, three runs of 9 alternating;
#   suite: new/'s whole GPU suite, then memcheck on the cases that compare the sharing kernels.
#   OUT=... bash benchmark/results/2026-12-06-session43/run1.sh carry/c1 ab|suite
set -u
source tools/ab_common.sh "${1:-carry/c1}"
step=${2:-ab}
o=$OUT/call1_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    alternate rows 60 '^(reduce|reduce_bw)/(rms_norm|layer_norm)/(bf16|f32)/(37x1537|256x3072|1024x4096|8192x1024|2048x4096|5462x1537)/fusekit/gpu_throughput' 9 3 base new newall min6 min6all
    cat $o/table_rows.txt ;;
  suite)
    suite test_new 330 $d/new/fusekit_test_reduce_gpu
    sanitize memcheck memcheck_ln_paths $d/new/fusekit_test_reduce_gpu "layer_norm: aligned and general*" 120 ;;
esac
cd $OUT && tar cJf call1_$step.tar.xz call1_$step && rm -rf call1_$step
