#!/usr/bin/env bash
# Forty-fourth session, call 2: main 88e71bd's GPU suite (the forty-third session's review rows,
# d30b14c: bf16 1101 x 1024 sharing, never run on a GPU before), memcheck and racecheck on the
# cases that compare the sharing kernels.
#   OUT=... bash benchmark/results/2026-12-06-session44/run2.sh carry/c1s
set -u
source tools/ab_common.sh "${1:-carry/c1s}"
o=$OUT/call2_suite; mkdir -p $o; gpu_info $o
suite test_head 450 $d/head/fusekit_test_reduce_gpu
sanitize memcheck memcheck_ln_paths $d/head/fusekit_test_reduce_gpu "layer_norm: aligned and general*" 90
cd $OUT && tar cJf call2_suite.tar.xz call2_suite && rm -rf call2_suite
