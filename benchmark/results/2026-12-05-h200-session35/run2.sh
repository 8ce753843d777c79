#!/usr/bin/env bash
# Session 35 call 2 (H200): the LayerNorm GPU cases of the one-FMA normalize (fma/), then racecheck of the row sanitize set on main (the thirty-second session's
# ran out of its 120 s; the thirty-fourth's call was taken back).  OUT=... bash carry/s35/run2.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call2; mkdir -p $o; gpu_info $o
timeout 150 $d/fma/fusekit_test_reduce_gpu -tc='*layer_norm*,*same bits*' > $o/test_reduce_fma.log 2>&1
echo "fma layer_norm tests rc=$? $(grep 'test cases' $o/test_reduce_fma.log) t=$SECONDS"
T=$d/main/fusekit_test_reduce_gpu
export FUSEKIT_TEST_GUARD_BYTES=0
timeout 420 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*" > $o/reduce_racecheck.log 2>&1
echo "reduce racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/reduce_racecheck.log | tail -1) $(grep 'test cases' $o/reduce_racecheck.log) t=$SECONDS"
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
