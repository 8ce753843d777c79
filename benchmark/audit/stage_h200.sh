#!/usr/bin/env bash
# Copies what the H200 run needs into one folder (carried to the device machine as one path):
# fusekit-audit, every fusekit_bench_* binary of a build, Debian's libbenchmark.so.1debian.
#   benchmark/audit/stage_h200.sh BUILD_DIR STAGE_DIR [EXTRA_BINARY ...]
# EXTRA_BINARY: e.g. a second build's benchmark, copied as <name>.<n> (listed in STAGE_DIR/extra.txt).
set -euo pipefail
build=${1:?usage: stage_h200.sh BUILD_DIR STAGE_DIR [EXTRA_BINARY ...]}
stage=${2:?usage: stage_h200.sh BUILD_DIR STAGE_DIR [EXTRA_BINARY ...]}
shift 2
mkdir -p "$stage"
cp "$build/benchmark/audit/fusekit-audit" "$stage/"
find "$build/benchmark" -maxdepth 2 -type f -name 'fusekit_bench_*' -perm -u+x -exec cp {} "$stage/" \;
cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian "$stage/"
: > "$stage/extra.txt"
n=0
for extra in "$@"; do
  n=$((n + 1))
  cp "$extra" "$stage/$(basename "$extra").$n"
  echo "$(basename "$extra").$n" >> "$stage/extra.txt"
done
du -sh "$stage"
ls "$stage"
