#!/usr/bin/env bash
# Prepared in the thirty-ninth session (its device time ran out; about 3 minutes): branch wip/softmax-pair at e7e3841, after call 19 (pair/: an
# all -inf row's sum NaN again, as the stats test expects; up to 8 partials folded in index order,
# more by butterflies; the rescale never contracted) against main 4d5cb8d (base/) on softmax's row cases, two runs alternating;
# pair/'s softmax GPU cases; memcheck on the -inf / NaN case.
#   OUT=... bash benchmark/results/2026-12-05-session39/next_run20.sh carry/c20
set -u
source tools/ab_common.sh "${1:-carry/c20}"
o=$OUT/call20; mkdir -p $o; gpu_info $o
suite test_softmax_pair 200 $d/pair/fusekit_test_reduce_gpu "-tc=softmax*"
alternate rows 60 '^(reduce|reduce_bw)/softmax/.*/fusekit/gpu_throughput' 9 2 base pair
cat $o/table_rows.txt
sanitize memcheck memcheck_softmax_inf $d/pair/fusekit_test_reduce_gpu "softmax: all -inf*" 60
cd $OUT && tar cJf call20.tar.xz call20 && rm -rf call20
