#!/usr/bin/env bash
# Forty-seventh session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session47/run.sh CARRY STEP
# narrow (carry/c46n: base/ = main's bench (4326f30's kernels for these shapes); new/ =
#   wip/narrow-slices's bench and long_rows_probe built on it, and copy_probe.cu): the long rows base/
#   against new/ (bf16 N = 262144's sliced CTAs compiled for five an SM), two runs of 9 alternating,
#   then `probe narrow`, then copy_probe (what a copy of the same bytes reaches, three ways).
# narrowmin (call 1): copy_probe first, then one run of narrow's A/B and the probe, within 180 s.
# slicedrs [LIMIT] (call 2; carry/c46n with new/fusekit_test_rs_gpu: the branch's RMSNorm and softmax
#   GPU test translation units linked alone, stripped): their cases that reach the sliced kernels
#   (sliced rows, N from 1 to 262144, staged against register kernels, queued in-place calls, bitwise
#   repeatable). slicedln (call 3; carry/c47l: the LayerNorm unit alone): its cases, memcheck on its
#   sliced rows. narrowsliced: narrow, then slicedrs in what is left of 470 s.
# suite (new/fusekit_test_reduce_gpu: a whole GPU suite, stripped). status (new/ bench with the copy
#   ceiling measured): every row case >= 8M elements and the long rows, fusekit against a size-matched
#   cudaMemcpyAsync in the same run, and the H3 norms.
# (A combined carry of the narrow A/B and the whole test binary passed the call's 64 MiB; hence the
# test binaries split by op.)
# Next session (built from wip/narrow-slices 0262ffc, the wave rule; test binaries relinked at its head): `run.sh carry/c48n narrowsliced`
#   (base/ = main's bench, new/ = the branch's bench, probe and RMSNorm + softmax GPU cases), then
#   `run.sh carry/c48l slicedln` (LayerNorm's cases, memcheck; copy_probe rides along there).
set -u
source tools/ab_common.sh "${1:?carry}"
step=${2:?step}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
sliced_cases='*sliced*,*N from 1*,*staged and register*,*queued*,*repeatable*'
long_rows='^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput'
# ab_narrow LIMIT REPS: the long rows base/ against new/, REPS runs of 9 alternating;
# narrow_probe LIMIT, copy_probe LIMIT: each probe under its time limit.
ab_narrow() {
  alternate narrow "$1" "$long_rows" 9 "$2" base new
  cat $o/table_narrow.txt
}
narrow_probe() {
  timeout "$1" $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
  cat $o/probe.txt
}
copy_probe() {
  timeout "$1" $d/new/copy_probe > $o/copy_probe.txt 2>&1; echo "copy_probe rc=$? t=$SECONDS"
  cat $o/copy_probe.txt
}
# sliced_suite NAME LIMIT BINARY: the cases that reach the sliced kernels, with their durations.
sliced_suite() {
  suite "$1" "$2" "$3" --duration=true "-tc=$sliced_cases"
  grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/$1.log | head -40
}
case $step in
  narrow) ab_narrow 60 2; narrow_probe 60; copy_probe 90 ;;
  narrowmin) copy_probe 60; ab_narrow 40 1; narrow_probe 40 ;;
  slicedrs) sliced_suite test_sliced_rs ${3:-150} $d/new/fusekit_test_rs_gpu ;;
  narrowsliced)
    ab_narrow 60 2; narrow_probe 60; copy_probe 90
    sliced_suite test_sliced_rs $((470 - SECONDS)) $d/new/fusekit_test_rs_gpu ;;
  slicedln)
    sliced_suite test_sliced_ln 150 $d/new/fusekit_test_ln_gpu
    sanitize memcheck memcheck_sliced_ln $d/new/fusekit_test_ln_gpu "*sliced rows*" 200 ;;
  suite) suite test_all 520 $d/new/fusekit_test_reduce_gpu --duration=true ;;
  status)
    MEASURE_CEILINGS=1 bench status 400 $d/new/fusekit_bench_reduce \
      '^(reduce_bw/.*/(fusekit|copy)|h3_norm.*/fusekit)/gpu_throughput' 9
    tail -5 $o/status.txt ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
