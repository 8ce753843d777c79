#!/usr/bin/env bash
# Thirty-seventh session, call 11: the H3 norms (5376 bf16) over token counts around the row
# kernel's CTA slots (N = 5376 bf16: 192-thread CTAs, 64 registers for RMSNorm, so 5 CTAs an SM,
# 660 on 132 SMs): does time step up past each multiple of the resident CTAs (a partial last wave)?
#   OUT=... bash carry/s37/run11.sh   (carry: carry/s37)
set -u
source tools/ab_common.sh carry/s37
o=$OUT/call11; mkdir -p $o; gpu_info $o
T=132,264,396,528,600,660,661,700,792,924,925,990,1056,1320,1321,1584,1980,4096
for r in 1 2; do bench tokens_main_$r 120 $d/tokens/fusekit_bench_reduce '^h3_norm/.*/fusekit/gpu_throughput' 15 FUSEKIT_H3_TOKENS=$T; done
python3 tools/ab.py $o tokens main > $o/table_tokens.txt; cat $o/table_tokens.txt
cd $OUT && tar cJf call11.tar.xz call11 && rm -rf call11
