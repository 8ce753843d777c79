#!/usr/bin/env bash
# Session 33 call 3: the row kernels' 16-byte stores kept whole (wip/row-store-b128, rowstore/):
# its GPU tests and memcheck of the row sanitize set, then every row case (seed shapes, the
# bandwidth sweep, the long rows, the H3 norms) against main (main/), 9 samples, twice alternating.
#   OUT=... bash carry/s33/run3.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call3; mkdir -p $o; gpu_info $o
T=$d/rowstore/fusekit_test_reduce_gpu
timeout 200 $T > $o/test_reduce.log 2>&1; echo "test_reduce rc=$? $(grep 'test cases' $o/test_reduce.log) t=$SECONDS"
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*,*sliced rows*" > $o/reduce_memcheck.log 2>&1
echo "reduce memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/reduce_memcheck.log) $(grep 'test cases' $o/reduce_memcheck.log) t=$SECONDS"
unset FUSEKIT_TEST_GUARD_BYTES
R='^((reduce|reduce_bw)/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do for b in main rowstore; do bench reduce_${b}_$r 120 $d/$b/fusekit_bench_reduce "$R" 9; done; done
python3 $d/ab.py $o reduce main rowstore | tee $o/table_reduce.txt
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
