# Sourced by runN.sh (thirty-sixth session): unpacks the carried binaries (xz) once, sets the library path.
#   base/    : main a6e1e2c's row code (= carry/s35/input, wip/row-input-reads 5511cb0): fusekit_bench_reduce
#   words/   : wip/param-words (parameter vectors read as the 4-byte words they cover): bench, test
#   helpers/ : wip/row-helpers (write helpers for calls of few rows): bench, test
#   words48/ : words + phased 'warps' kernels bounded to 5 CTAs an SM (48 registers): bench, test
# libbenchmark.so.1debian: the copy in base/ (else ../s33).
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$d"/*/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/*/fusekit_* 2>/dev/null
export LD_LIBRARY_PATH=$d/base:$d/../s33  # base/ carries a copy (the carry limit is 8 paths)
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
bench() {
  local name=$1 limit=$2 bin=$3 filter=$4 samples=$5; shift 5
  env "$@" timeout "$limit" "$bin" --require-gpu --skip-ceilings --samples="$samples" --benchmark_filter="$filter" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json > "$o/$name.txt" 2>&1
  echo "$name rc=$? t=$SECONDS"
}
