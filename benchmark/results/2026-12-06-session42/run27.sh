#!/usr/bin/env bash
# Forty-second session, call 27. new/: main (07f179f) + the phased kernels' CTAs of several rows on
# rows of one phase, sharing their parameters through shared memory (CtaRows::one_phase); one binary,
# FUSEKIT_PHASED_SHARE=off is the kernels as before.
# Step ab (about 2 minutes): the N = 1537 rows (5462 rows: two a CTA, shared; 37: one a CTA, as
# before), sharing off and on, three runs alternating, then new/'s whole GPU suite.
# Step check: memcheck and racecheck on the phased-kernel cases (600 x 1537 rows shared, sub-warp rows).
# (In call 27 the sweep's filter had a '/.*/' too many and matched nothing; the corrected sweep below
# ran inline on the same lease as call27_ab2.)
#   OUT=... bash benchmark/results/2026-12-06-session42/run27.sh carry/c27 ab|check
set -u
source tools/ab_common.sh "${1:-carry/c27}"
step=${2:-ab}
o=$OUT/call27_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    sweep share 40 $d/new/fusekit_bench_reduce '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/(bf16|f32)/(37x1537|5462x1537)/fusekit/gpu_throughput' 15 3 FUSEKIT_PHASED_SHARE off on
    cat $o/table_share.txt
    suite test_new 330 $d/new/fusekit_test_reduce_gpu ;;
  check)
    sanitize memcheck memcheck_ln_phased $d/new/fusekit_test_reduce_gpu "layer_norm: phased and general*" 200
    sanitize racecheck racecheck_rms_phased $d/new/fusekit_test_reduce_gpu "rms_norm: phased and general*" 300 ;;
esac
cd $OUT && tar cJf call27_$step.tar.xz call27_$step && rm -rf call27_$step
