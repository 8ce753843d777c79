#!/bin/bash
# call 1 (the first sliced build: four pieces a stage, 32 KB slices, no parameter prefetch)
mkdir -p /tmp/o && export OUT_FINAL=$OUT && OUT=/tmp/o bash tools/h200_reduce.sh carry/s18 tests sanitize
OUT=/tmp/o SAMPLES=9 SHAPES='(128x65536|8x262144|32x262144|512x16384)' \
  CONFIGS="registers:FUSEKIT_ROW_KERNEL=registers slices:FUSEKIT_SLICE_KB=32 s16:FUSEKIT_SLICE_KB=16 s64:FUSEKIT_SLICE_KB=64 p1:FUSEKIT_SLICE_PIECES=1" \
  bash tools/h200_reduce_sweep.sh carry/s18 sweep
tar czf $OUT_FINAL/call1.tgz -C /tmp/o .
