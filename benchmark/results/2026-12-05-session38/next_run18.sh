#!/usr/bin/env bash
# Prepared in the thirty-eighth session for an H200 (about 3 minutes; skip it on an H100): main's
# row kernels (carry/c17/base/ = main 3275cc5's bench: 6d1cfa0 and every later row change) on every
# row case and the size-matched copies, two runs each, for README's status row (the H200 figures
# there predate 6d1cfa0). Run after next_run17.sh on the same warm machine.
#   OUT=... bash benchmark/results/2026-12-05-session38/next_run18.sh carry/c17
set -u
source tools/ab_common.sh "${1:-carry/c17}"
o=$OUT/call18; mkdir -p $o; gpu_info $o
for r in 1 2; do
  bench rows_main_$r 90 $d/base/fusekit_bench_reduce '^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput' 9
  bench rows_copy_$r 60 $d/base/fusekit_bench_reduce '^((reduce|reduce_bw)/.*|h3_norm/.*)/copy/gpu_throughput' 9
done
python3 tools/ab.py $o rows main copy | tee $o/table_main_vs_copy.txt
cd $OUT && tar cJf call18.tar.xz call18 && rm -rf call18
