#!/usr/bin/env bash
# Session 29 call 8: where fc1's epilogue time goes on the 232-token tiles (consumers' own
# epilogue). Probe builds of 1222e01's kernels: stage/ stages every chunk and skips the nodes;
# nodes/ runs every node but the store; head/ is the whole epilogue. Outputs of the probes fail
# validation; the times stand. Each build twice, alternating, 15 samples.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz "$d"/stage/*.xz "$d"/nodes/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/* $d/stage/* $d/nodes/*; export LD_LIBRARY_PATH=$d
o=$OUT/call8; mkdir -p $o; SECONDS=0
while read -r line; do
  echo "$line" > $o/one.txt
  case "$line" in stage_*) b=$d/stage/fusekit_bench_gemm;; nodes_*) b=$d/nodes/fusekit_bench_gemm;; *) b=$d/head/fusekit_bench_gemm;; esac
  bash $d/cases.sh $b $o $o/one.txt
done < $d/cases8.txt
touch $o/samples.csv; python3 $d/clocks2.py $o | tee $o/clocks.txt; rm -f $o/samples.csv $o/one.txt
echo "t=$SECONDS"
cd $OUT && tar cJf call8.tar.xz call8 && rm -rf call8
