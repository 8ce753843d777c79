#!/usr/bin/env bash
# Thirty-seventh session: the row and cluster kernels letting the next grid be scheduled early
# (trigger/) against main (main/): every row case, two runs alternating; then the trigger build's
# whole reduce GPU suite. Results packed into $OUT/call9.tar.xz.
#   OUT=... bash benchmark/results/2026-12-05-session37/run9.sh carry/s37   (carry: carry/s37 = main/, trigger/, libbenchmark)
# (It ran as carry/s37/run9.sh with a common.sh whose functions are now tools/ab_common.sh.)
# (Rewritten after it ran on tools/ab_common.sh's alternate / suite / sanitize: the same runs.)
set -u
source tools/ab_common.sh "${1:-carry/s37}"
o=$OUT/call9; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
alternate rows 60 "$ALL" 9 2 main trigger
awk 'NR==1 || /37x1537|tokens=/' $o/table_rows.txt; sort -k4 -n $o/table_rows.txt | awk 'NR<=6'; sort -k4 -n $o/table_rows.txt | tail -6
suite test_reduce_trigger 250 $d/trigger/fusekit_test_reduce_gpu
cd $OUT && tar cJf call9.tar.xz call9 && rm -rf call9
