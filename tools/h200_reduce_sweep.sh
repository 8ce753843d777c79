#!/usr/bin/env bash
# A sweep of the row kernels' tuning knobs on the lent H200, in one call; JSON and a table under $OUT.
#   CONFIGS="label:VAR=V,VAR=V label2:..." tools/h200_reduce_sweep.sh CARRY_DIR [tests] [sweep]
# CARRY_DIR holds fusekit_bench_reduce (and fusekit_test_reduce_gpu for `tests`), built here for
# sm_90a, and libbenchmark.so.1debian. Each config runs the mid-row bandwidth shapes and the H3 norms
# (gpu_throughput) with its environment; `copy` (the same bytes through cudaMemcpyAsync) runs last.
source "$(dirname "$0")/h200_common.sh" "$@"
# `tests` is h200_reduce.sh's (TEST_FILTER narrows it).
if [[ $steps == *" tests "* ]]; then
  bash "$(dirname "$0")/h200_reduce.sh" "$dir" tests || status=1
fi
if [[ $steps == *" sweep "* ]]; then
  mid=${SHAPES:-'(8192x1024|5462x1537|2048x4096|1561x5376|1024x8192|512x16384|tokens=925|tokens=4096)'}
  run() {  # label impl [VAR=V ...]
    local label=$1 impl=$2
    shift 2
    env "$@" "$dir/fusekit_bench_reduce" --require-gpu --skip-ceilings --samples=${SAMPLES:-11} \
      --benchmark_filter="^(reduce_bw|h3_norm)/.*/$mid/$impl/gpu_throughput" \
      --benchmark_out="$out/sweep_$label.json" --benchmark_out_format=json > /dev/null 2> "$out/sweep_$label.err" \
      || { status=1; echo "FAILED: $label"; tail -n 3 "$out/sweep_$label.err"; }
  }
  for c in ${CONFIGS:-automatic:}; do
    IFS=, read -r -a vars <<< "${c#*:}"
    run "${c%%:*}" fusekit "${vars[@]}"
  done
  run copy copy
  python3 "$(dirname "$0")/sweep_table.py" "$out"/sweep_*.json > "$out/sweep_table.txt"
  cat "$out/sweep_table.txt"
  rm -f "$out"/sweep_*.err
fi
exit $status
