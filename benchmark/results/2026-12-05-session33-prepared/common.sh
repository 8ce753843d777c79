# Sourced by runN.sh: the carried binaries and the A/B functions (tools/ab_common.sh, from the repo root;
# its functions were once copied here) with this folder's library path.
#   main/      : main's fusekit_bench_gemm (d36172c, GEMM code as 1751dba) and fusekit_bench_reduce (3972929 = 1751dba's rows)
#   bulk/      : branch wip/bulk-store: fusekit_test_gemm, fusekit_bench_gemm
#   rowstore/  : branch wip/row-store-b128: fusekit_test_reduce_gpu, fusekit_bench_reduce
#   batched/   : branch wip/store-batched: fusekit_test_gemm, fusekit_bench_gemm
source tools/ab_common.sh "$(dirname "${BASH_SOURCE[0]}")"
