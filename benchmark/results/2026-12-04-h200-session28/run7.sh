#!/usr/bin/env bash
# Session 28 call 7: the layer report on base (8573004) and on D (232-token tiles handed over,
# 3 stages), alternating, same machine: is D's fc1 at 925 tokens slower there, or the context?
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/base/*.xz "$d"/D/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/D/*; export LD_LIBRARY_PATH=$d
SECONDS=0
for v in base D base2 D2; do
  b=${v%2}
  mkdir -p $OUT/layer_$v && OUT=$OUT/layer_$v timeout 200 bash $d/h200_layer_report.sh $d/$b > $OUT/layer_$v/run.log 2>&1; echo "$v rc=$? t=$SECONDS"
  grep -E " 925 " $OUT/layer_$v/run.log | grep -E "fc1|out_proj"
done
