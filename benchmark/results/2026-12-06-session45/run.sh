#!/usr/bin/env bash
# Forty-fifth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session45/run.sh CARRY STEP
# kernels (carry/c2 or c4): the long rows (8 x 262144, 32 x 262144, 128 x 65536; every op, f32
# and bf16) of new/ with the register clusters forced (FUSEKIT_ROW_KERNEL=registers) against the
# library's choice (the sliced staged rows), two runs of 9 alternating: is the choice, not revisited
# since the twenty-third session's barrier-free exchange, still the faster one for each N, dtype, op?
# merge (carry/c4: base/ = main's bench; new/ = the branch's bench and fusekit_test_rms_gpu, the
# RMSNorm translation unit of the GPU suite linked alone, so that both benches and a test binary fit
# one call's carry): the long rows base/ against new/, then new/'s RMSNorm sliced and sizes cases,
# and memcheck on its slice layouts.
# suite (carry/c4s: new/fusekit_test_reduce_gpu, the whole GPU suite of the build to merge): every
# case with its duration, under 560 s (it took about 460 s on ee07f06).
# probe (carry/c3, long_rows_probe built with tried_persistent_slices.patch applied):
#   carry/c3/long_rows_probe [persist]
set -u
source tools/ab_common.sh "${1:-carry/c2}"
step=${2:-kernels}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
long_rows='^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput'
case $step in
  kernels)
    sweep kernels 150 $d/new/fusekit_bench_reduce "$long_rows" 9 2 FUSEKIT_ROW_KERNEL library registers
    cat $o/table_kernels.txt ;;
  merge)
    alternate slices 80 "$long_rows" 9 2 base new
    cat $o/table_slices.txt
    suite test_rms 90 $d/new/fusekit_test_rms_gpu --duration=true "-tc=rms_norm: sliced*,rms_norm: N from 1*"
    sanitize memcheck memcheck_slices $d/new/fusekit_test_rms_gpu "rms_norm: sliced rows at every slice size*" 45 ;;
  suite)
    suite test_all 560 $d/new/fusekit_test_reduce_gpu --duration=true ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
