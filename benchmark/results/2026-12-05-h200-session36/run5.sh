#!/usr/bin/env bash
# Prepared in the thirty-fifth session for the next device session (nothing here has run yet).
# Three row-kernel changes against main (fma/ = c924357's row code), on every row case, twice alternating:
#   bar/   wip/row-barriers 9529f75: a named barrier a row in the cross-warp sum (not the CTA's)
#   input/ wip/row-input-reads 5511cb0: the input row's whole vectors read without an address test
#   lean/  wip/row-lean-probe (probe build): only the benchmark's write loops compiled (code size)
# (run6.sh: their GPU tests and racecheck.) Carry (64 MB limit with the tree): carry/s35/{common.sh,run5.sh,ab.py},
# carry/s35/{fma,bar,input}/fusekit_bench_reduce.xz, carry/s35/lean, carry/s33/libbenchmark.so.1debian.
#   OUT=... bash carry/s35/run5.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call5; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do
  for b in fma bar input lean; do bench rows_${b}_$r 90 $d/$b/fusekit_bench_reduce "$ALL" 9; done
done
python3 $d/ab.py $o rows fma bar input lean | tee $o/table_rows.txt | awk 'NR==1 || /37x1537|5462x1537|8192x1024|2048x4096/'
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
