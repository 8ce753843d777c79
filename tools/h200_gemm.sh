#!/usr/bin/env bash
# What the lent H200 runs for the GEMMs, in one call; logs under $OUT.
#   tools/h200_gemm.sh CARRY_DIR [tests|portable|sanitize|bench]...
# CARRY_DIR holds fusekit_test_gemm and fusekit_bench_gemm built here (x86-64, sm_90a) and
# libbenchmark.so.1debian. BENCH_ARGS adds Google Benchmark flags (e.g. a filter).
source "$(dirname "$0")/h200_common.sh" "$@"
run_step() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  echo "== $name"
  timeout "$limit" "$@" > "$out/$name.log" 2>&1 || { status=1; echo "FAILED ($?): $name"; }
  grep -E "test cases|assertions|ERROR SUMMARY" "$out/$name.log" | tail -n 3
}
[[ $steps == *" tests "* ]] && run_step test_gemm_hopper 240 "$dir/fusekit_test_gemm"
[[ $steps == *" portable "* ]] && FUSEKIT_GEMM_PATH=portable run_step test_gemm_portable 240 "$dir/fusekit_test_gemm"
if [[ $steps == *" sanitize "* ]]; then
  export FUSEKIT_TEST_GUARD_BYTES=0  # guard bytes inside an allocation would hide reads from memcheck
  # The small and odd shapes of every epilogue; the full-size H3 cases take too long under the tools.
  cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    run_step "sanitize_$tool" 170 compute-sanitizer --tool "$tool" --error-exitcode 9 "$dir/fusekit_test_gemm" -tc="$cases"
  done
fi
if [[ $steps == *" bench "* ]]; then
  echo "== fusekit_bench_gemm"
  timeout 400 "$dir/fusekit_bench_gemm" --require-gpu ${BENCH_ARGS:-} --benchmark_out="$out/bench_gemm.json" \
    --benchmark_out_format=json > "$out/bench_gemm.txt" 2> "$out/bench_gemm.log" || { status=1; echo "FAILED: bench"; }
  tail -n 40 "$out/bench_gemm.txt"
fi
exit $status
