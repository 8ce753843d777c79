#!/usr/bin/env bash
# Session 7, call 7: the layer report on step 8's build (8b88948).
set -u
d=$(cd "$(dirname "$0")" && pwd)
chmod +x $d/lr/*
mkdir -p $OUT/q7
OUT=$OUT/q7 bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 30
