#!/usr/bin/env bash
# The closing H200 run for the row ops, in one call: tests, compute-sanitizer, the benchmark suite,
# the torch probe on the same cases, a four-round audit (plain baseline vs fusekit, torch as the
# control) and the plots. Everything is packed into $OUT/results.tgz (the device returns <= 8 files).
#   tools/h200_final.sh STAGE_DIR       (STAGE_DIR: binaries, fusekit-audit, libbenchmark.so.1debian)
set -uo pipefail
stage=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:?set OUT}
work=$out/run
mkdir -p "$work"
export LD_LIBRARY_PATH="$stage:${LD_LIBRARY_PATH:-}"
OUT=$work "$repo/tools/h200_reduce.sh" "$stage" tests sanitize bench
cp "$work/bench_reduce.json" "$work/suite_reduce.json"
echo "== torch probe"
python3 "$repo/benchmark/torch_probe.py" --filter '^(reduce|h3_norm)/' --samples 15 --out "$work/torch_probe.json" \
  2> "$work/torch_probe.log" || echo "FAILED: torch probe"
tail -n 2 "$work/torch_probe.log"
echo "== audit"
OUT=$work STEPS="audit plots" FILTER='^reduce/[a-z_]+/bf16/' ROUNDS=4 SAMPLES=10 \
  "$repo/benchmark/audit/run_h200_audit.sh" "$stage" 2>&1 | tail -n 12
python3 "$repo/benchmark/summarize.py" "$work/bench_reduce.json" "$work/torch_probe.json" > "$work/summary.md" 2>&1
cp "$work/summary.md" "$work/bench_reduce.json" "$work/torch_probe.json" "$out/" 2>/dev/null
tar czf "$out/results.tgz" -C "$work" . && rm -rf "$work"
ls -la "$out"
