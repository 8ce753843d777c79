#!/usr/bin/env bash
# Thirty-sixth session: write helpers for calls of few rows (helpers/ = wip/row-helpers) against
# main's row code (base/): the seed shapes (37-row ones included) and the H3 norms, twice
# alternating; then the helpers build's new GPU case and the batch-invariance case, and memcheck on the new case
# (short limits: the session had about 200 s of device time left).
# Carry: carry/s36/{common.sh,run5.sh}, carry/s36/base, carry/s36/helpers.
#   OUT=... bash carry/s36/run5.sh
# (Rewritten after it ran on tools/ab_common.sh's alternate / suite / sanitize: the same runs.)
set -u
# Ran on an H100 (the only card that started); its files are helpers_h100/ here (call6/ in the tar).
source "$(dirname "$0")/common.sh"
o=$OUT/call6; mkdir -p $o; gpu_info $o
SEED='^(reduce/.*|h3_norm/.*)/fusekit/gpu_throughput'
alternate seed 40 "$SEED" 9 2 base helpers
awk 'NR==1 || /37x1537|tokens/' $o/table_seed.txt
T=$d/helpers/fusekit_test_reduce_gpu
suite test_helpers ${TEST_S:-80} $T "-tc=*write helpers*,*batch invariant*"
sanitize memcheck memcheck_helpers $T "*write helpers*" ${MEMCHECK_S:-40}
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
