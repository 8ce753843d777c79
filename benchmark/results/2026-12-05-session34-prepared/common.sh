# Sourced by runN.sh: the carried binaries and the A/B functions (tools/ab_common.sh, from the repo root;
# its functions were once copied here) with this folder's library path.
#   phased/ : branch wip/phased-params (c12c2ef): fusekit_test_reduce_gpu, fusekit_bench_reduce
#   held/   : the same branch built with -DFUSEKIT_ROW_PHASED_HOLDS: fusekit_bench_reduce
# libbenchmark.so.1debian comes from ../s33 (carry both folders).
source tools/ab_common.sh "$(dirname "${BASH_SOURCE[0]}")"
export LD_LIBRARY_PATH=$d/../s33:$LD_LIBRARY_PATH
