#!/usr/bin/env bash
# Session 32 call 3: two A/Bs against main (bin/, d36172c) and the GPU tests of each.
#  (a) exp/fusekit_*_reduce (branch wip/softmax-vpt16): f32 softmax's sliced rows at 16 vectors a
#      thread by default (the norms, bf16 softmax unchanged: controls);
#  (b) exp/fusekit_*_gemm (branch wip/store-words): the epilogue's 16-bit stores packed by hand
#      (one STG.128 where nvcc emitted four STG.E).
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call3; mkdir -p $o; gpu_info $o
E=$d/exp
timeout 200 $E/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test_gemm exp rc=$? $(grep 'test cases' $o/test_gemm.log) t=$SECONDS"
timeout 120 $E/fusekit_test_reduce_gpu -tc='softmax*' > $o/test_reduce_softmax.log 2>&1; echo "test_reduce softmax exp rc=$? $(grep 'test cases' $o/test_reduce_softmax.log) t=$SECONDS"
G='^gemm/(qkv_proj|out_proj|fc1|fc2)/bf16/tokens=[0-9]+/(fusekit|fusekit_bare|cublaslt)/gpu_throughput/'
for r in 1 2; do for b in bin exp; do
  FUSEKIT_GEMM_TOKENS=70,925,4096 timeout 120 $d/$b/fusekit_bench_gemm --require-gpu --skip-ceilings --samples=15 --benchmark_filter="$G" \
    --benchmark_out=$o/gemm_${b}_$r.json --benchmark_out_format=json > $o/gemm_${b}_$r.txt 2>&1
  echo "gemm $b $r rc=$? t=$SECONDS"
done; done
L='^reduce_bw/.*/(128x65536|8x262144|32x262144)/fusekit/gpu_throughput'
for r in 1 2; do for b in bin exp; do
  timeout 90 $d/$b/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$L" \
    --benchmark_out=$o/reduce_${b}_$r.json --benchmark_out_format=json > /dev/null 2> $o/reduce_${b}_$r.err
  echo "reduce $b $r rc=$? t=$SECONDS"
done; done
for b in bin/fusekit_bench_gemm exp/fusekit_bench_gemm bin/fusekit_bench_reduce; do
  echo "== stores in $b: $(cuobjdump -sass $d/$b | grep -oE 'STG\.E[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"
done | tee $o/stores.txt
export FUSEKIT_TEST_GUARD_BYTES=0
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $E/fusekit_test_gemm -tc="$cases" > $o/gemm_memcheck.log 2>&1
echo "gemm memcheck exp rc=$? $(grep -E 'ERROR SUMMARY' $o/gemm_memcheck.log) $(grep 'test cases' $o/gemm_memcheck.log) t=$SECONDS"
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
