# Sourced by runN.sh: the carried binaries and the A/B functions (tools/ab_common.sh, from the repo root;
# its functions were once copied here) with this folder's library path.
#   vpt/  : wip/row-vpt (main 9b61f5b + FUSEKIT_ROW_VPT, the register rows' vectors a thread): fusekit_bench_reduce
#   main/ : main 9b61f5b: fusekit_test_reduce_gpu
#   fma/  : wip/ln-fma (vpt + LayerNorm's one-FMA normalize): fusekit_bench_reduce, fusekit_test_reduce_gpu
# libbenchmark.so.1debian comes from ../s33 (carry both folders).
source tools/ab_common.sh "$(dirname "${BASH_SOURCE[0]}")"
export LD_LIBRARY_PATH=$d/../s33:$LD_LIBRARY_PATH
