#!/usr/bin/env bash
# Session 32 call 1: every GPU suite on main (d36172c: the thirty-first session's portable-path
# test fix and LayerNorm FMA, never run whole on a GPU), memcheck of the GEMM and row sanitize
# sets, and ncu source counters of fc1 at 925 tokens (bare and fused): where its epilogue stalls.
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call1; mkdir -p $o; gpu_info $o
for t in fusekit_test_core fusekit_test_older_target fusekit_test_plain_sm90 fusekit_test_gemm fusekit_test_reduce_gpu; do
  timeout 300 $B/$t > $o/$t.log 2>&1; echo "$t rc=$? $(grep -E 'test cases' $o/$t.log | tail -1) t=$SECONDS"
done
FUSEKIT_GEMM_PATH=portable timeout 240 $B/fusekit_test_gemm > $o/gemm_portable.log 2>&1
echo "gemm portable rc=$? $(grep -E 'test cases' $o/gemm_portable.log | tail -1) t=$SECONDS"
export FUSEKIT_TEST_GUARD_BYTES=0
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $B/fusekit_test_gemm -tc="$cases" > $o/gemm_memcheck.log 2>&1
echo "gemm memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/gemm_memcheck.log) $(grep 'test cases' $o/gemm_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/fusekit_test_reduce_gpu \
  -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*,*sliced rows*" > $o/reduce_memcheck.log 2>&1
echo "reduce memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/reduce_memcheck.log) $(grep 'test cases' $o/reduce_memcheck.log) t=$SECONDS"
unset FUSEKIT_TEST_GUARD_BYTES
for impl in fusekit_bare fusekit; do
  FUSEKIT_GEMM_TOKENS=925 timeout 100 ncu --graph-profiling node --clock-control none -k 'regex:gemm_kernel' --launch-skip 4 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $o/fc1_$impl -f \
    $B/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/fc1/bf16/tokens=925/$impl/gpu_throughput" > $o/ncu_run_$impl.txt 2>&1
  echo "ncu $impl rc=$? t=$SECONDS"
  ncu -i $o/fc1_$impl.ncu-rep --page source --print-source sass --csv > $o/fc1_${impl}_src.csv 2> $o/fc1_${impl}_src.err
  ncu -i $o/fc1_$impl.ncu-rep --page details > $o/fc1_${impl}_details.txt 2>&1
  rm -f $o/fc1_$impl.ncu-rep; xz -9 $o/fc1_${impl}_src.csv
done
grep -h -B2 -A12 "ERROR:" $o/*.log | head -40
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
