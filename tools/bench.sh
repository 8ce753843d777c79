#!/usr/bin/env bash
# Set-up, build, then the default benchmark suite: fusekit_bench_reduce and fusekit_bench_gemm on
# their default shapes (the checkpoint adapter's disk benchmark runs on its own),
# Google Benchmark JSON written to build/release/results/. Extra arguments go to every binary
# (e.g. --benchmark_filter=reduce/). Without a GPU it says so and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "fusekit: no NVIDIA GPU on this machine; the benchmark suite needs one (tests: tools/test.sh)."
  exit 0
fi
bash tools/setup.sh
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset release
cmake --build --preset release -j "$(nproc)"
results=build/release/results
mkdir -p "$results"
# The GPU suites on the harness; the checkpoint adapter's disk benchmark is separate (docs/checkpoint.md).
for name in fusekit_bench_reduce fusekit_bench_gemm; do
  bin=build/release/benchmark/${name#fusekit_bench_}/$name
  echo "== $name -> $results/$name.json"
  "$bin" --benchmark_out="$results/$name.json" --benchmark_out_format=json "$@"
done
python3 benchmark/summarize.py "$results"/fusekit_bench_*.json --mode gpu_throughput || true
