#!/usr/bin/env bash
# Prepared in the thirty-seventh session for the next device session (about 8 minutes, an H200):
# main 3410c12 (main/: LayerNorm's block kernels without held parameters, 6d1cfa0) against 0f16f20
# (base/) on every row case, two runs alternating; main's whole reduce GPU suite; memcheck (no guard
# bytes) on LayerNorm's sizes case (N 1 to 262144: 4097 and 5376 take the changed kernels).
# Carry: carry/s38 (base/fusekit_bench_reduce.xz, main/{fusekit_bench_reduce,fusekit_test_reduce_gpu}.xz,
# libbenchmark.so.1debian).
#   OUT=... bash benchmark/results/2026-12-05-session37/next_run14.sh carry/s38
set -u
source tools/ab_common.sh "${1:-carry/s38}"
o=$OUT/call14; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
alternate rows 60 "$ALL" 9 2 base main
awk 'NR==1 || /37x1537|tokens=|5376|6144|8192/' $o/table_rows.txt
suite test_reduce_main 250 $d/main/fusekit_test_reduce_gpu
sanitize memcheck memcheck_layer_norm $d/main/fusekit_test_reduce_gpu "layer_norm: N from*" 150
cd $OUT && tar cJf call14.tar.xz call14 && rm -rf call14
