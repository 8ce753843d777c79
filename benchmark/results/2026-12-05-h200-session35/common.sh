# Sourced by runN.sh: unpacks the carried binaries (xz) once and sets the library path.
#   vpt/  : wip/row-vpt (main 9b61f5b + FUSEKIT_ROW_VPT, the register rows' vectors a thread): fusekit_bench_reduce
#   main/ : main 9b61f5b: fusekit_test_reduce_gpu
#   fma/  : wip/ln-fma (vpt + LayerNorm's one-FMA normalize): fusekit_bench_reduce, fusekit_test_reduce_gpu
# libbenchmark.so.1debian comes from ../s33 (carry both folders).
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$d"/*/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/*/fusekit_* 2>/dev/null
export LD_LIBRARY_PATH=$d/../s33
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
# bench NAME SECONDS BINARY FILTER SAMPLES [VAR=VALUE...]: gpu_throughput medians into $o/NAME.json
bench() {
  local name=$1 limit=$2 bin=$3 filter=$4 samples=$5; shift 5
  env "$@" timeout "$limit" "$bin" --require-gpu --skip-ceilings --samples="$samples" --benchmark_filter="$filter" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json > "$o/$name.txt" 2>&1
  echo "$name rc=$? t=$SECONDS"
}
