# Sourced by runN.sh: unpacks the carried binaries (xz) once and sets the library path.
#   main/      : main's fusekit_bench_gemm (d36172c, GEMM code as 1751dba) and fusekit_bench_reduce (3972929 = 1751dba's rows)
#   bulk/      : branch wip/bulk-store: fusekit_test_gemm, fusekit_bench_gemm
#   rowstore/  : branch wip/row-store-b128: fusekit_test_reduce_gpu, fusekit_bench_reduce
#   batched/   : branch wip/store-batched: fusekit_test_gemm, fusekit_bench_gemm
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$d"/*/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/*/fusekit_* 2>/dev/null
export LD_LIBRARY_PATH=$d
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
# bench NAME SECONDS BINARY FILTER SAMPLES [VAR=VALUE...]: gpu_throughput medians into $o/NAME.json
# (what the binary prints into $o/NAME.txt), the A/B scripts' input (ab.py).
bench() {
  local name=$1 limit=$2 bin=$3 filter=$4 samples=$5; shift 5
  env "$@" timeout "$limit" "$bin" --require-gpu --skip-ceilings --samples="$samples" --benchmark_filter="$filter" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json > "$o/$name.txt" 2>&1
  echo "$name rc=$? t=$SECONDS"
}
