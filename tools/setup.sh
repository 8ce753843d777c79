#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build fusekit. The CUDA toolkit (nvcc 12.8+,
# at /usr/local/cuda) must already be there: it is not an apt package on Debian.
set -euo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
if ! command -v nvcc >/dev/null; then
  echo "fusekit: nvcc not found (looked on PATH and in /usr/local/cuda/bin); install the CUDA toolkit first" >&2
  exit 1
fi
packages=(cmake ninja-build g++ doctest-dev libbenchmark-dev nlohmann-json3-dev libssl-dev)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "fusekit: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
