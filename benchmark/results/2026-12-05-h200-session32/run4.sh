#!/usr/bin/env bash
# Session 32 call 4: issue #7's layer report on wip/store-words (lr/), tools/h200_layer_report.sh.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/lr/fusekit-*
o=$OUT/call4; mkdir -p $o
OUT=$o bash tools/h200_layer_report.sh "$d/lr" > $o/run.log 2>&1; echo "layer report rc=$?"
tail -40 $o/run.log
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
