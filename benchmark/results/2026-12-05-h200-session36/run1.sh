#!/usr/bin/env bash
# Thirty-sixth session, call 1: the parameter-word builds against main's row code on every row
# case, twice alternating. Carry: carry/s36 (without the test binaries), carry/s33/libbenchmark.so.1debian.
#   OUT=... bash carry/s36/run1.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do
  for b in base words words48; do bench rows_${b}_$r 90 $d/$b/fusekit_bench_reduce "$ALL" 9; done
done
python3 $d/ab.py $o rows base words words48 | tee $o/table_rows.txt | awk 'NR==1 || /37x1537|5462x1537|8192x1024|tokens/'
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
