# Sourced by runN.sh (thirty-sixth session): the carried binaries and the A/B functions (tools/ab_common.sh, from the repo root;
# its functions were once copied here) with this folder's library path.
#   base/    : main a6e1e2c's row code (= carry/s35/input, wip/row-input-reads 5511cb0): fusekit_bench_reduce
#   words/   : wip/param-words (parameter vectors read as the 4-byte words they cover): bench, test
#   helpers/ : wip/row-helpers (write helpers for calls of few rows): bench, test
#   words48/ : words + phased 'warps' kernels bounded to 5 CTAs an SM (48 registers): bench, test
# libbenchmark.so.1debian: the copy in base/ (else ../s33).
source tools/ab_common.sh "$(dirname "${BASH_SOURCE[0]}")"
export LD_LIBRARY_PATH=$d/base:$d/../s33:$LD_LIBRARY_PATH  # base/ carries a copy (the carry limit is 8 paths)
