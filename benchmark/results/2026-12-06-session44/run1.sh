#!/usr/bin/env bash
# Forty-fourth session, call 1. base/: main 88e71bd. new/: the trimmed warp rows (16-bit N = 1537:
# 96 threads a row, not 128, threads 0 and 1 spilling the one or two vectors past 192; f32: 192
# threads, not 224).
#   ab: every N = 1537 row case of the three ops, three runs of 15 alternating;
#   suite: new/'s whole GPU suite, memcheck on the phased-agree and helpers cases.
#   OUT=... bash benchmark/results/2026-12-06-session44/run1.sh carry/c1 ab|suite
set -u
source tools/ab_common.sh "${1:-carry/c1}"
step=${2:-ab}
o=$OUT/call1_$step; mkdir -p $o; gpu_info $o
case $step in
  ab)
    alternate rows 60 '^(reduce|reduce_bw)/(softmax|rms_norm|layer_norm)/.*/.*x1537/fusekit/gpu_throughput' 15 3 base new
    cat $o/table_rows.txt ;;
  suite)
    suite test_new 450 $d/new/fusekit_test_reduce_gpu
    sanitize memcheck memcheck_rms_phased $d/new/fusekit_test_reduce_gpu "rms_norm: phased*" 90
    sanitize memcheck memcheck_ln_helpers $d/new/fusekit_test_reduce_gpu "layer_norm: *helpers*" 60 ;;
esac
cd $OUT && tar cJf call1_$step.tar.xz call1_$step && rm -rf call1_$step
