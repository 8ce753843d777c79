#!/usr/bin/env bash
# The H200 run of issue #7 (the layer report), in one call; JSON and logs under $OUT (5 files).
#   tools/h200_layer_report.sh STAGE_DIR
#   FIXTURE_VALUES=bits|weights (default weights): the generated checkpoint's float values, random bit
#   patterns or spread like trained weights (fusekit-convert --values; what a model multiplies;
#   the report's slowdowns came out in the same band on both, RESULTS.md fifty-fifth session).
# STAGE_DIR holds two binaries built on the build machine (x86-64, sm_90a):
#   fusekit-layer-report (examples/layer_report) and fusekit-convert (examples/checkpoint).
# Steps:
#   1. a smoke run on a generated tiny-config checkpoint (seconds), so a failure shows cheaply;
#   2. a full-width diffusers checkpoint with 3 main blocks (+ the 2 refiner blocks and the top
#      level: 74 tensors, 5.60 GB in 3 shards + index) generated on local disk;
#   3. the report on blocks 0,1,2 at 70 and 925 tokens. Its mapping section writes the native
#      checkpoint (5.60 GB) and the copy mapped back (5.60 GB, deleted after the comparison):
#      16.8 GB on disk at the peak, 64 GB there.
# Expected wall time ~2 minutes (disk ~20 GB written; float64 references on 16 cores ~10 s;
# timing 24 cases x 2 implementations x 16 replays of 20 calls); the timeout below caps it at 5.
set -uo pipefail
stage=$(cd "${1:?usage: tools/h200_layer_report.sh STAGE_DIR}" && pwd)
out=${OUT:?set OUT}
scratch=${SCRATCH:-/tmp/fusekit-layer-report}
status=0
report="$stage/fusekit-layer-report"
convert="$stage/fusekit-convert"
start=$SECONDS

mkdir -p "$out"
rm -rf "$scratch" && mkdir -p "$scratch"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; df -h "$scratch"; nproc;
  echo "checkpoint values: ${FIXTURE_VALUES:-weights}"; } > "$out/device.txt" 2>&1

echo "== 1. tiny-config smoke run"
"$convert" --generate diffusers "$scratch/tiny" --config tiny --shards 2 > /dev/null \
  && timeout 60 "$report" --checkpoint "$scratch/tiny" --config tiny --tokens 1,70,925 \
       --json "$out/layer_report_tiny.json" > "$out/layer_report_tiny.log" 2>&1 \
  || { status=1; echo "FAILED: tiny smoke run"; }
tail -n 16 "$out/layer_report_tiny.log"

echo "== 2. full-width 3-block diffusers checkpoint"
timeout 120 "$convert" --generate diffusers "$scratch/h3" --config full --blocks 3 --shards 3 \
  --values "${FIXTURE_VALUES:-weights}" 2>&1 | tail -n 2 \
  || { status=1; echo "FAILED: generate"; }
du -sh "$scratch/h3"
echo "($((SECONDS - start)) s)"

echo "== 3. layer report, blocks 0,1,2, tokens 70,925"
timeout $((290 - (SECONDS - start))) "$report" --checkpoint "$scratch/h3" --blocks 0,1,2 --tokens 70,925 \
  --work "$scratch/work" --json "$out/layer_report.json" > "$out/layer_report.log" 2>&1
rc=$?
if ((rc != 0)); then status=1; echo "FAILED: layer report (exit $rc; 124: timed out)"; fi
cat "$out/layer_report.log"

rm -rf "$scratch"
echo "== done in $((SECONDS - start)) s, status $status"
exit $status
