#!/usr/bin/env bash
# Session 32 call 2 (run inline from the session, recorded here): racecheck and synccheck of the
# GEMM and row sanitize sets on main (d36172c's binaries, carry/s32/bin).
source carry/s32/common.sh; o=$OUT/call2; mkdir -p $o; export FUSEKIT_TEST_GUARD_BYTES=0
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
for tool in racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/fusekit_test_gemm -tc="$cases" > $o/gemm_$tool.log 2>&1
  echo "gemm $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/gemm_$tool.log|tail -1) $(grep 'test cases' $o/gemm_$tool.log) t=$SECONDS"
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/fusekit_test_reduce_gpu -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*" > $o/reduce_$tool.log 2>&1
  echo "reduce $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/reduce_$tool.log|tail -1) $(grep 'test cases' $o/reduce_$tool.log) t=$SECONDS"
done
grep -h "Read Thread\|Write Thread" $o/*.log | sort | uniq -c | head
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
