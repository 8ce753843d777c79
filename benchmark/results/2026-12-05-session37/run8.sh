#!/usr/bin/env bash
# Thirty-seventh session: merged main's row code (= helpers/, SASS of the helped kernels identical)
# against a6e1e2c's (base/) on the 37-row seed shapes and H3 norms, three runs alternating, on an H200.
#   OUT=... bash carry/s36/run8.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call8; mkdir -p $o; gpu_info $o
SEL='^(reduce/.*/37x1537|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2 3; do
  for b in base helpers; do bench rows_${b}_$r 40 $d/$b/fusekit_bench_reduce "$SEL" 15; done
done
python3 $d/ab.py $o rows base helpers | tee $o/table_rows.txt
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv >> $o/gpu.txt
