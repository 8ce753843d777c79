#!/usr/bin/env bash
# Forty-third session, call 3. base/: main 1d09573. new/: the shared parameters as merged: the
# aligned kernels of 16-bit warp rows, several a CTA, share them (CtaRows::sharing), every sharing
# kernel (aligned or phased) bounded to 6 CTAs an SM (40 registers), the phased kernels' reads dealt
# with items 0 and 1's rows known (call 2's new/ dealt all by a mask: 0.98-1.00x on the 1537 rows).
#   ab (about 5 minutes): every row case of the three ops, two runs of 9 alternating;
#   suite: new/'s whole GPU suite, memcheck on LayerNorm's and racecheck on RMSNorm's
#   aligned-and-general case (the sharing kernels' shared memory).
#   OUT=... bash benchmark/results/2026-12-06-session43/run3.sh carry/c3 ab|suite
set -u
source tools/ab_common.sh "${1:-carry/c3}"
step=${2:-ab}
o=$OUT/call3_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    alternate rows 75 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/fusekit/gpu_throughput' 9 2 base new
    cat $o/table_rows.txt ;;
  suite)
    suite test_new 330 $d/new/fusekit_test_reduce_gpu
    sanitize memcheck memcheck_ln_paths $d/new/fusekit_test_reduce_gpu "layer_norm: aligned and general*" 60
    sanitize racecheck racecheck_rms_paths $d/new/fusekit_test_reduce_gpu "rms_norm: aligned and general*" 150 ;;
esac
cd $OUT && tar cJf call3_$step.tar.xz call3_$step && rm -rf call3_$step
