#!/usr/bin/env bash
# Thirty-seventh session, call 12: the block layout's 16-bit kernels (rows of 4097-8192 bf16, the H3
# norms' 5376 among them) without held parameters, so more CTAs an SM:
#   tokens/  : main 0f16f20 (RMSNorm block 64 registers: 5 CTAs an SM; LayerNorm 77: 4)
#   nohold/  : parameters read at the store for the block layout (RMSNorm 48: 7 CTAs; LayerNorm 52: 6)
#   nohold40/: nohold, and RMSNorm's block kernels bounded to 6 CTAs of 256 (40 registers, 100 B of spill: 8 CTAs)
# bf16 row cases and the H3 norms over token counts, two runs alternating, medians of 9.
#   OUT=... bash carry/s37/run12.sh   (carry: carry/s37)
# (Rewritten after it ran on tools/ab_common.sh's alternate / suite / sanitize: the same runs.)
set -u
source tools/ab_common.sh carry/s37
o=$OUT/call12; mkdir -p $o; gpu_info $o
SEL='^((reduce|reduce_bw)/[a-z_]+/bf16/.*|h3_norm/.*)/fusekit/gpu_throughput'
export FUSEKIT_H3_TOKENS=528,660,700,792,924,925,1056,1320,4096
alternate rows 70 "$SEL" 9 2 tokens nohold nohold40
cat $o/table_rows.txt
cd $OUT && tar cJf call12.tar.xz call12 && rm -rf call12
