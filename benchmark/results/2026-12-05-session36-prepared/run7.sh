#!/usr/bin/env bash
# Prepared in the thirty-sixth session for the next device session: wip/row-helpers (helpers/,
# b7dfdef's binaries) on an H200 in one call (about 8 minutes): the A/B against main's row code
# (base/) on every row case, twice alternating; the whole reduce GPU suite; memcheck (no guard
# bytes) and racecheck on the helpers case (the helpers read the owners' warp partials).
# Carry: carry/s36/{common.sh,run7.sh}, carry/s36/base, carry/s36/helpers.
#   OUT=... bash carry/s36/run7.sh
# (Rewritten after it ran on tools/ab_common.sh's alternate / suite / sanitize: the same runs.)
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call7; mkdir -p $o; gpu_info $o
ALL='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
alternate rows 60 "$ALL" 9 2 base helpers
awk 'NR==1 || /37x1537|tokens=925/' $o/table_rows.txt
T=$d/helpers/fusekit_test_reduce_gpu
suite test_reduce_helpers 250 $T
sanitize memcheck memcheck_helpers $T "*write helpers*" 45
sanitize racecheck racecheck_helpers $T "*write helpers*" 90
cd $OUT && tar cJf call7.tar.xz call7 && rm -rf call7
