#!/usr/bin/env bash
# Forty-fifth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session45/run.sh carry/c2 kernels
# kernels: the long rows (8 x 262144, 32 x 262144, 128 x 65536; every op, f32 and bf16) with the
# register clusters forced (FUSEKIT_ROW_KERNEL=registers) against the library's choice (the
# sliced staged rows), two runs of 9 alternating: is the choice, not revisited since the
# twenty-third session's barrier-free exchange, still the faster one for each N, dtype and op?
# slices (carry/c4): base/ (main ee07f06) against new/ (slices sized on an aligned row, their
# threads on its vectors: bf16 N = 262144 on 256 threads, not 288), the long rows, two runs of 9
# alternating; then new/ with the register clusters forced against its own choice.
# tests (carry/c4s): new/'s GPU cases over the sliced rows (every slice size and vectors a thread,
# their staged parameters, N from 1 to 262144), each op in its own run; memcheck on RMSNorm's
# slice layouts.
# merge (carry/c4, with new/fusekit_test_rms_gpu: the RMSNorm translation unit of the GPU suite
# linked alone, so that both benches and a test binary fit one call's carry): the long rows base/
# against new/, then new/'s RMSNorm sliced and sizes cases, and memcheck on its slice layouts.
# suite (carry/c4s: new/fusekit_test_reduce_gpu, the whole GPU suite of the build to merge): every
# case with its duration, under 560 s (it took about 460 s on ee07f06).
# probe (carry/c3, long_rows_probe built with tried_persistent_slices.patch applied):
#   carry/c3/long_rows_probe [persist]
set -u
source tools/ab_common.sh "${1:-carry/c2}"
step=${2:-kernels}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
case $step in
  kernels)
    sweep kernels 150 $d/new/fusekit_bench_reduce '^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput' 9 2 \
      FUSEKIT_ROW_KERNEL library registers
    cat $o/table_kernels.txt ;;
  slices)
    alternate slices 150 '^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput' 9 2 base new
    cat $o/table_slices.txt
    sweep kernels 150 $d/new/fusekit_bench_reduce '^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput' 9 1 \
      FUSEKIT_ROW_KERNEL library registers
    cat $o/table_kernels.txt ;;
  merge)
    alternate slices 80 '^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput' 9 2 base new
    cat $o/table_slices.txt
    suite test_rms 90 $d/new/fusekit_test_rms_gpu --duration=true "-tc=rms_norm: sliced*,rms_norm: N from 1*"
    sanitize memcheck memcheck_slices $d/new/fusekit_test_rms_gpu "rms_norm: sliced rows at every slice size*" 45 ;;
  suite)
    suite test_all 560 $d/new/fusekit_test_reduce_gpu --duration=true ;;
  tests)
    for op in softmax rms_norm layer_norm; do
      suite test_$op 90 $d/new/fusekit_test_reduce_gpu --duration=true "-tc=$op: sliced*,$op: N from 1*"
    done
    sanitize memcheck memcheck_slices $d/new/fusekit_test_reduce_gpu "rms_norm: sliced rows at every slice size*" 60 ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
