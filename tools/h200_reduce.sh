#!/usr/bin/env bash
# What the lent H200 runs for the row ops, in one call; logs under $OUT.
#   [TEST_FILTER=doctest -tc patterns] tools/h200_reduce.sh CARRY_DIR [tests|sanitize|bench]...
# CARRY_DIR holds the binaries built here (x86-64, sm_90a) and libbenchmark.so.1debian.
source "$(dirname "$0")/h200_common.sh" "$@"
if [[ $steps == *" tests "* ]]; then
  for t in "$dir"/fusekit_test_*; do
    echo "== $(basename "$t")"
    "$t" ${TEST_FILTER:+-tc="$TEST_FILTER"} > "$out/$(basename "$t").log" 2>&1 || { status=1; echo "FAILED: $(basename "$t")"; }
    tail -n 4 "$out/$(basename "$t").log"
  done
fi
if [[ $steps == *" sanitize "* ]]; then
  export FUSEKIT_TEST_GUARD_BYTES=0  # guard bytes inside an allocation would hide reads from memcheck
  # A subset that reaches every layout (sub-warp to 16-CTA clusters, the staged kernel forced and
  # automatic), misaligned and strided pointers, in place, residual, modulation and rejected calls,
  # within the lease's minutes. (synccheck on the tests of long f32 rows reports a missing wait at
  # the cluster exchange's early-armed barrier and then kills the kernel; memcheck is clean there:
  # benchmark/RESULTS.md, twenty-seventh session.)
  for tool in memcheck racecheck synccheck; do  # synccheck: barrier misuse (e.g. one bar.sync met from two code paths)
    echo "== compute-sanitizer $tool"
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$dir/fusekit_test_reduce_gpu" \
      -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*" > "$out/sanitize_$tool.log" 2>&1 \
      || { status=1; echo "FAILED: $tool"; }
    grep -E "ERROR SUMMARY|test cases" "$out/sanitize_$tool.log" | tail -n 2
  done
fi
if [[ $steps == *" bench "* ]]; then
  echo "== fusekit_bench_reduce"
  "$dir/fusekit_bench_reduce" --require-gpu ${BENCH_ARGS:-} --benchmark_out="$out/bench_reduce.json" \
    --benchmark_out_format=json > "$out/bench_reduce.txt" 2> "$out/bench_reduce.log" || { status=1; echo "FAILED: bench"; }
  tail -n 3 "$out/bench_reduce.log"
fi
exit $status
