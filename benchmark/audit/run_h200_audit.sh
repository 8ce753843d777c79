#!/usr/bin/env bash
# Everything the H200 must run for the benchmark issue, in one call; all output under $OUT.
#   OUT=/some/dir benchmark/audit/run_h200_audit.sh STAGE_DIR
# STAGE_DIR comes from benchmark/audit/stage_h200.sh. Steps (STEPS="smoke suites torch audit plots"
# by default; give fewer to split the work over calls):
#   smoke   the harness self-test with ceilings measured: the harness works on this GPU
#   suites  every fusekit_bench_* in STAGE_DIR once (ceilings measured), Google Benchmark JSON each
#   torch   benchmark/torch_probe.py over every case
#   audit   fusekit-audit: REFERENCE vs CANDIDATE, ROUNDS rounds, torch probe as control, then replay
#   plots   a PNG per suite (GB/s or TFLOP/s with ceilings) and the audit's gain plot
# Audit settings (environment): REFERENCE, CANDIDATE (binaries in STAGE_DIR; default both
# fusekit_bench_reduce), REF_IMPL (default plain), CAND_IMPL (default fusekit), FILTER (default
# "^reduce/"), ROUNDS (default 4), SAMPLES (default 15).
set -uo pipefail
stage=$(cd "${1:?usage: OUT=DIR run_h200_audit.sh STAGE_DIR}" && pwd)
out=${OUT:?set OUT to the output folder}
repo=$(cd "$(dirname "$0")/../.." && pwd)
steps=${STEPS:-smoke suites torch audit plots}
reference=${REFERENCE:-fusekit_bench_reduce}
candidate=${CANDIDATE:-fusekit_bench_reduce}
ref_impl=${REF_IMPL:-plain}
cand_impl=${CAND_IMPL:-fusekit}
filter=${FILTER:-^reduce/}
rounds=${ROUNDS:-4}
samples=${SAMPLES:-15}
export LD_LIBRARY_PATH="$stage:${LD_LIBRARY_PATH:-}"
mkdir -p "$out"
status=0
step() { echo "== $(date +%T) $*" | tee -a "$out/steps.log" >&2; }
fail() { echo "!! $*" | tee -a "$out/steps.log" >&2; status=1; }
has() { [[ " $steps " == *" $1 "* ]]; }

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || fail "nvidia-smi failed"
nvidia-smi -q -d CLOCK >> "$out/nvidia-smi.txt" 2>&1 || true

if has smoke; then
  step "smoke: harness self-test"
  "$stage/fusekit_bench_harness_selftest" --require-gpu --samples="$samples" \
    --benchmark_out="$out/smoke_harness.json" --benchmark_out_format=json > "$out/smoke_harness.txt" 2> "$out/smoke_harness.log" \
    || fail "harness self-test exited $?"
  tail -n 12 "$out/smoke_harness.log" >&2
fi

if has suites; then
  for bin in "$stage"/fusekit_bench_*; do
    name=$(basename "$bin")
    [[ $name == fusekit_bench_harness_selftest || $name == *.[0-9]* ]] && continue
    step "suite: $name"
    "$bin" --require-gpu --samples="$samples" --benchmark_out="$out/suite_${name#fusekit_bench_}.json" \
      --benchmark_out_format=json > "$out/suite_${name#fusekit_bench_}.txt" 2> "$out/suite_${name#fusekit_bench_}.log" \
      || fail "$name exited $?"
    grep -c "FAILED\|INVALID" "$out/suite_${name#fusekit_bench_}.log" | sed 's/^/   failed or invalid runs: /' >&2
  done
fi

if has torch; then
  step "torch probe: every case"
  python3 "$repo/benchmark/torch_probe.py" --samples "$samples" --out "$out/torch_probe.json" 2> "$out/torch_probe.log" \
    || fail "torch probe exited $? (see torch_probe.log)"
  tail -n 3 "$out/torch_probe.log" >&2
fi

if has audit; then
  step "audit: $reference ($ref_impl) vs $candidate ($cand_impl), $rounds rounds, filter '$filter'"
  "$stage/fusekit-audit" --reference "$stage/$reference" --candidate "$stage/$candidate" --out "$out/audit" \
    --rounds "$rounds" --filter "$filter" --reference-impl "$ref_impl" --candidate-impl "$cand_impl" \
    --control "python3 $repo/benchmark/torch_probe.py --skip-ceilings --samples $samples" \
    --bench-arg --skip-ceilings --bench-arg "--samples=$samples" || fail "audit status fail (see audit/audit.json)"
  step "audit replay"
  "$stage/fusekit-audit" --replay "$out/audit" --out "$out/audit/replay.json" || fail "replay failed"
fi

if has plots; then
  step "plots"
  reports=$(ls "$out"/suite_*.json "$out"/torch_probe.json 2>/dev/null)
  if [[ -n $reports ]]; then
    for mode in gpu_throughput gpu_latency; do
      python3 "$repo/benchmark/plot.py" suites $reports --mode "$mode" --out "$out/plots" || fail "suite plots failed"
    done
  fi
  [[ -f $out/audit/audit.json ]] && { python3 "$repo/benchmark/plot.py" audit "$out/audit/audit.json" --out "$out/plots/audit.png" || fail "audit plot failed"; }
fi
step "done, status $status"
exit $status
