#!/usr/bin/env bash
# Forty-second session, call 30 (about 5 minutes): the shared parameters' reads split between the
# CTA's two rows (split/: branch wip/split-share, row y reads chunk y) against row 0 reading all
# (share/: main 0c1e579), where row 1's threads waited at the first barrier for row 0's reads: the
# 1537 rows, three runs alternating, then split/'s whole GPU suite.
#   OUT=... bash benchmark/results/2026-12-06-session42/run30.sh carry/c30
set -u
source tools/ab_common.sh "${1:-carry/c30}"
o=$OUT/call30; mkdir -p $o; gpu_info $o
alternate rows 40 '^(reduce|reduce_bw)/(rms_norm|layer_norm)/bf16/(37x1537|5462x1537)/fusekit/gpu_throughput' 15 3 share split
cat $o/table_rows.txt
suite test_split 330 $d/split/fusekit_test_reduce_gpu
cd $OUT && tar cJf call30.tar.xz call30 && rm -rf call30
