# Sourced by runN.sh: unpacks the carried binaries (xz) once and sets the library path.
#   main/      : main's fusekit_bench_gemm (d36172c, GEMM code as 1751dba) and fusekit_bench_reduce (3972929 = 1751dba's rows)
#   bulk/      : branch wip/bulk-store: fusekit_test_gemm, fusekit_bench_gemm
#   rowstore/  : branch wip/row-store-b128: fusekit_test_reduce_gpu, fusekit_bench_reduce
#   batched/   : branch wip/store-batched: fusekit_test_gemm, fusekit_bench_gemm
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$d"/*/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
for b in main bulk rowstore batched; do chmod +x "$d/$b"/fusekit_* 2>/dev/null; done
export LD_LIBRARY_PATH=$d
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
