#!/usr/bin/env bash
# Session 28 call 8: is it the 3-stage ring? The layer report on E (8573004 with the 232-token
# tiles' ring cut from 4 stages to 3, the epilogue still on the consumers) and on base, alternating.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/base/fusekit-layer-report.xz "$d"/E/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/E/*; export LD_LIBRARY_PATH=$d
SECONDS=0
for v in E base; do
  mkdir -p $OUT/call8/layer_$v && OUT=$OUT/call8/layer_$v timeout 150 bash $d/h200_layer_report.sh $d/$v > $OUT/call8/layer_$v/run.log 2>&1; echo "$v rc=$? t=$SECONDS"
  grep -E " 925 " $OUT/call8/layer_$v/layer_report.log
done
cd $OUT && tar cJf call8.tar.xz call8 && rm -rf call8
