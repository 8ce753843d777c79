#!/usr/bin/env bash
# Thirty-ninth session, call 18 (about 5 minutes; 3 more on an H200): wip/sliced-params 4d5cb8d
# (sl/: parameters staged automatically for 16-bit one-wave sliced calls only) against main (base/:
# 3275cc5's bench) on every row case, two runs alternating; sl/'s GPU cases on staged parameters and
# sizes; on an H200 only, sl/ against the size-matched copies (two runs) for README's status row.
#   OUT=... bash benchmark/results/2026-12-05-session39/run18.sh carry/c18
set -u
source tools/ab_common.sh "${1:-carry/c18}"
o=$OUT/call18; mkdir -p $o; gpu_info $o
ROWS='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
alternate rows 90 "$ROWS" 9 2 base sl
cat $o/table_rows.txt
suite test_sl 200 $d/sl/fusekit_test_reduce_gpu "-tc=*parameters staged*,*N from 1 to*"
if grep -q H200 $o/gpu.txt; then
  for r in 1 2; do
    bench status_copy_$r 60 $d/sl/fusekit_bench_reduce '^((reduce|reduce_bw)/.*|h3_norm/.*)/copy/gpu_throughput' 9
  done
  cp $o/rows_sl_1.json $o/status_main_1.json; cp $o/rows_sl_2.json $o/status_main_2.json
  python3 tools/ab.py $o status main copy | tee $o/table_main_vs_copy.txt
fi
cd $OUT && tar cJf call18.tar.xz call18 && rm -rf call18
