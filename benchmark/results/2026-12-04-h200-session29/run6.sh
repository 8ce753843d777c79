#!/usr/bin/env bash
# Session 29 call 6: the twenty-seventh session's CTA pairs (160-token tiles in clusters of 2 that
# multicast the token box; tried_swapped_pairs.patch on eac9397, one binary, FUSEKIT_SWAPPED_PAIRS=off
# for the unpaired kernel) in short (15 samples) and sustained (600) runs, clocks sampled: do
# fewer L2 reads raise the clock under the power cap?
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/pairs/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/pairs/*; export LD_LIBRARY_PATH=$d
o=$OUT/call6; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $o/samples.csv 2>&1 &
smi=$!
bash $d/cases.sh $d/pairs/fusekit_bench_gemm $o $d/cases6.txt
kill $smi
python3 $d/clocks2.py $o | tee $o/clocks.txt
xz $o/samples.csv
echo "t=$SECONDS"
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
