#!/usr/bin/env bash
# Forty-third session, call 2. base/: main 1d09573 (call 1's). new/: the aligned kernels of 16-bit
# warp rows, several a CTA, share their parameters (CtaRows::sharing), LayerNorm's bounded to 6 CTAs
# an SM (40 registers); the phased kernels' share reads unrolled again (call 1's loop cost them
# 1.5-4%). exp/: new/ built with -DFUSEKIT_ROW_EXP_PHASED_LN_MIN_CTAS=6 -DFUSEKIT_ROW_EXP_RMS_MIN_CTAS=6
# (the phased one_phase LayerNorm kernels and both RMSNorm sharing kernels bounded to 6 CTAs an SM).
#   ab (about 1 minute): the norms on the rows these touch, three runs of 9 alternating;
#   suite: new/'s whole GPU suite, then memcheck on LayerNorm's aligned-and-general case.
#   OUT=... bash benchmark/results/2026-12-06-session43/run2.sh carry/c2 ab|suite
set -u
source tools/ab_common.sh "${1:-carry/c2}"
step=${2:-ab}
o=$OUT/call2_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    alternate rows 60 '^(reduce|reduce_bw)/(rms_norm|layer_norm)/(bf16|f32)/(37x1537|256x3072|1024x4096|8192x1024|2048x4096|5462x1537)/fusekit/gpu_throughput' 9 3 base new exp
    cat $o/table_rows.txt ;;
  suite)
    suite test_new 330 $d/new/fusekit_test_reduce_gpu
    sanitize memcheck memcheck_ln_paths $d/new/fusekit_test_reduce_gpu "layer_norm: aligned and general*" 150 ;;
esac
cd $OUT && tar cJf call2_$step.tar.xz call2_$step && rm -rf call2_$step
