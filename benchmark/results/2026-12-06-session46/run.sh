#!/usr/bin/env bash
# Forty-sixth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session46/run.sh CARRY STEP
# merge (carry/c46: base/ = main's bench; new/ = wip/held-params's bench and its RMSNorm and
# LayerNorm GPU test translation units linked alone, stripped): the long rows base/ against new/ (the
# aligned slices), new/'s sliced-row cases, memcheck on the slices.
# suite (carry/c46s: new/fusekit_test_reduce_gpu, the whole GPU suite of the build to merge, and
# long_rows_probe.cu built on it): every case with its duration (under 520 s), then the probe (the
# waves of the aligned slices; the staged parameters never / always / automatically, with residuals).
# rule (carry/c46r: new/ = the probe and the norms' test binary rebuilt on the held-clusters rule,
# and carry/c46's bench): the probe (each row count rotating over its own 96 MB), the sliced-row
# cases, and the register clusters forced (FUSEKIT_ROW_KERNEL=registers) against the library's
# choice on the long rows, two runs of 9 alternating.
set -u
source tools/ab_common.sh "${1:-carry/c46}"
step=${2:-merge}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
long_rows='^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput'
case $step in
  merge)
    alternate slices 80 "$long_rows" 9 2 base new
    cat $o/table_slices.txt
    suite test_norms 120 $d/new/fusekit_test_norms_gpu --duration=true "-tc=*sliced*,rms_norm: N from 1*"
    sanitize memcheck memcheck_slices $d/new/fusekit_test_norms_gpu "*sliced rows with their parameters*,rms_norm: sliced rows at every*" 150 ;;
  suite)
    suite test_all 520 $d/new/fusekit_test_reduce_gpu --duration=true
    timeout 60 $d/new/long_rows_probe > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt ;;
  rule)
    timeout 90 $d/new/long_rows_probe > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt
    suite test_norms 120 $d/new/fusekit_test_norms_gpu --duration=true "-tc=*sliced*,rms_norm: N from 1*"
    sweep kernels 60 $d/new/fusekit_bench_reduce "$long_rows" 9 2 FUSEKIT_ROW_KERNEL library registers
    cat $o/table_kernels.txt ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
