#!/usr/bin/env bash
# Set-up, build (every CUDA translation unit, for sm_90a) and every test. Without a GPU the GPU
# test cases are skipped and each test binary prints why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset release
cmake --build --preset release -j "$(nproc)"
ctest --preset release -j "$(nproc)"
