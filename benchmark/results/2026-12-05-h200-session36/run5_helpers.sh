#!/usr/bin/env bash
# Thirty-sixth session: write helpers for calls of few rows (helpers/ = wip/row-helpers) against
# main's row code (base/): the seed shapes (37-row ones included) and the H3 norms, twice
# alternating; then the helpers build's new GPU case and the batch-invariance case, and memcheck on the new case
# (short limits: the session had about 200 s of device time left).
# Carry: carry/s36/{common.sh,run5.sh,ab.py}, carry/s36/base, carry/s36/helpers.
#   OUT=... bash carry/s36/run5.sh
set -u
# Ran on an H100 (the only card that started); its files are helpers_h100/ here (call6/ in the tar).
source "$(dirname "$0")/common.sh"
o=$OUT/call6; mkdir -p $o; gpu_info $o
SEED='^(reduce/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do
  for b in base helpers; do bench seed_${b}_$r 40 $d/$b/fusekit_bench_reduce "$SEED" 9; done
done
python3 $d/ab.py $o seed base helpers | tee $o/table_seed.txt | awk 'NR==1 || /37x1537|tokens/'
T=$d/helpers/fusekit_test_reduce_gpu
timeout ${TEST_S:-80} $T -tc="*write helpers*,*batch invariant*" > $o/test_helpers.log 2>&1
echo "tests rc=$? $(grep 'test cases' $o/test_helpers.log) t=$SECONDS"
FUSEKIT_TEST_GUARD_BYTES=0 timeout ${MEMCHECK_S:-40} compute-sanitizer --tool memcheck --error-exitcode 9 $T -tc="*write helpers*" > $o/memcheck_helpers.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/memcheck_helpers.log | tail -1) $(grep 'test cases' $o/memcheck_helpers.log) t=$SECONDS"
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
