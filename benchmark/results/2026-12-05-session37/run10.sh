#!/usr/bin/env bash
# Thirty-seventh session, call 10 (ran as one command line): main f9f80a2 alone on an H200, the
# 37-row seed shapes and the H3 norms three times (medians of 15), then the whole reduce GPU suite.
#   OUT=... bash benchmark/results/2026-12-05-session37/run10.sh carry/s37
set -u
source tools/ab_common.sh "${1:-carry/s37}"
o=$OUT/call10; mkdir -p $o; gpu_info $o
SEL='^(reduce/.*/37x1537|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2 3; do bench rows_main_$r 40 $d/main/fusekit_bench_reduce "$SEL" 15; done
python3 tools/ab.py $o rows main > $o/table_rows.txt; cat $o/table_rows.txt
timeout 250 $d/main/fusekit_test_reduce_gpu > $o/test_reduce_main.log 2>&1
echo "tests rc=$? $(grep 'test cases' $o/test_reduce_main.log) t=$SECONDS"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv >> $o/gpu.txt
cd $OUT && tar cJf call10.tar.xz call10 && rm -rf call10
