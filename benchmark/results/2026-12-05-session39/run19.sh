#!/usr/bin/env bash
# Thirty-ninth session, call 19 (about 4 minutes; 1 more on an H200): branch wip/softmax-pair
# (pair/: softmax's max and sum combined in one exchange, RowReducer::all_reduce_max_sum) against
# main 4d5cb8d (base/) on the softmax and RMSNorm row cases (RMSNorm: the reducer's float path,
# recompiled), two runs alternating; pair/'s softmax GPU cases; memcheck on softmax's sizes case.
# On an H200 only, the size-matched copies of those cases too (two runs).
#   OUT=... bash benchmark/results/2026-12-05-session39/run19.sh carry/c19
set -u
source tools/ab_common.sh "${1:-carry/c19}"
o=$OUT/call19; mkdir -p $o; gpu_info $o
ROWS='^(reduce|reduce_bw)/(softmax|rms_norm)/.*/fusekit/gpu_throughput'
alternate rows 90 "$ROWS" 9 2 base pair
cat $o/table_rows.txt
suite test_softmax_pair 200 $d/pair/fusekit_test_reduce_gpu "-tc=softmax*"
sanitize memcheck memcheck_softmax $d/pair/fusekit_test_reduce_gpu "softmax: N from*" 90
if grep -q H200 $o/gpu.txt; then
  for r in 1 2; do
    bench rows_copy_$r 60 $d/base/fusekit_bench_reduce '^(reduce|reduce_bw)/(softmax|rms_norm)/.*/copy/gpu_throughput' 9
  done
  python3 tools/ab.py $o rows base pair copy | tee $o/table_with_copy.txt
fi
cd $OUT && tar cJf call19.tar.xz call19 && rm -rf call19
