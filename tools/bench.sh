#!/usr/bin/env bash
# Set-up, build, then the default benchmark suite: every fusekit_bench_* on its default shapes,
# Google Benchmark JSON written to build/release/results/. Extra arguments go to every binary
# (e.g. --benchmark_filter=reduce/). Without a GPU it says so and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset release
cmake --build --preset release -j "$(nproc)"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "fusekit: no NVIDIA GPU on this machine; the benchmark suite needs one (tests: tools/test.sh)."
  exit 0
fi
results=build/release/results
mkdir -p "$results"
for bin in build/release/benchmark/*/fusekit_bench_*; do
  name=$(basename "$bin")
  [[ -x $bin && $name != fusekit_bench_harness_selftest ]] || continue
  echo "== $name -> $results/$name.json"
  "$bin" --benchmark_out="$results/$name.json" --benchmark_out_format=json "$@"
done
