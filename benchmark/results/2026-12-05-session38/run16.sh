#!/usr/bin/env bash
# Call 16: what the staged kernels' epilogue costs on long rows, and the write loop reading two
# vectors' parameters before writing either (pair/ = tried_staged_param_pairs.patch) against main
# 21a579d plus the FUSEKIT_ROW_PARAMS knob (base/).
# Carry: carry/c16 (base/, pair/ fusekit_bench_reduce.xz, pair/fusekit_test_reduce_gpu.xz, libbenchmark).
#   OUT=... bash benchmark/results/2026-12-05-session38/run16.sh carry/c16
# (Rewritten after it ran on tools/ab_common.sh's sweep: the same runs.)
set -u
source tools/ab_common.sh "${1:-carry/c16}"
o=$OUT/call16; mkdir -p $o; gpu_info $o
LONG='^reduce_bw/(rms_norm|layer_norm)/[a-z0-9]+/[0-9]+x(16384|65536|262144)/fusekit/gpu_throughput'
sweep params 90 $d/base/fusekit_bench_reduce "$LONG" 9 1 FUSEKIT_ROW_PARAMS all weight none
cat $o/table_params.txt
ALL='^reduce_bw/[a-z_]+/[a-z0-9]+/[0-9]+x(16384|65536|262144)/fusekit/gpu_throughput'
alternate rows 90 "$ALL" 9 2 base pair
cat $o/table_rows.txt
suite test_reduce_pair 250 $d/pair/fusekit_test_reduce_gpu
sanitize memcheck memcheck_pair $d/pair/fusekit_test_reduce_gpu "*sliced rows*,*staged and register*" 150
cd $OUT && tar cJf call16.tar.xz call16 && rm -rf call16
