#!/usr/bin/env bash
# Forty-seventh session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session47/run.sh CARRY STEP
# narrow (carry/c46n: base/ = main's bench (4326f30's kernels for these shapes); new/ =
#   wip/narrow-slices's bench and long_rows_probe built on it, and copy_probe.cu): the long rows base/
#   against new/ (bf16 N = 262144's sliced CTAs compiled for five an SM), two runs of 9 alternating,
#   then `probe narrow`, then copy_probe (what a copy of the same bytes reaches, three ways).
# suite (carry/c46ns: new/fusekit_test_reduce_gpu, the branch's whole GPU suite, stripped; rebuilt
#   from fb7c1d9 this session: the same bytes as the forty-sixth session's carry).
# sliced (carry/c46ns): the suite's cases that reach the sliced kernels (sliced rows, N from 1 to
#   262144, staged against register kernels, queued in-place calls, bitwise repeatable), then
#   memcheck on the sliced rows' cases, within 560 s.
# status (carry/c46n: new/ bench with the copy ceiling measured): every row case >= 8M elements and
#   the long rows, fusekit against a size-matched cudaMemcpyAsync in the same run, and the H3 norms.
# narrowmin: copy_probe first, then one run of narrow's A/B and the probe (within 180 s).
# narrowshort: narrow within 300 s; slicedrs [LIMIT]: the sliced cases below of new/fusekit_test_rs_gpu.
# narrowsliced (carry/c46n, with new/fusekit_test_rs_gpu: the branch's RMSNorm and softmax GPU test
#   translation units linked alone, stripped): narrow, then those ops' cases that reach the sliced
#   kernels; slicedln (carry/c47l: the LayerNorm unit alone): its cases, memcheck on its sliced rows.
# narrowsuite (carry/c46n and carry/c46ns): narrow, then the GPU cases that reach the sliced kernels
#   (sliced rows, N from 1 to 262144, staged against register kernels, queued in-place calls, bitwise
#   repeatable) from c46ns's suite, in what is left of 570 s.
# Next session (built from wip/narrow-slices 0262ffc, the wave rule): `run.sh carry/c48n narrowsliced`
#   (base/ = main's bench, new/ = the branch's bench, probe and RMSNorm + softmax GPU cases), then
#   `run.sh carry/c48l slicedln` (LayerNorm's cases, memcheck; copy_probe rides along there).
set -u
source tools/ab_common.sh "${1:?carry}"
chmod +x "$d"/*/* 2>/dev/null  # ab_common marks only fusekit_* executable
step=${2:?step}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
sliced_cases='*sliced*,*N from 1*,*staged and register*,*queued*,*repeatable*'
long_rows='^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput'
case $step in
  narrow)
    alternate narrow 60 "$long_rows" 9 2 base new
    cat $o/table_narrow.txt
    timeout 60 $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt
    timeout 90 $d/new/copy_probe > $o/copy_probe.txt 2>&1; echo "copy_probe rc=$? t=$SECONDS"
    cat $o/copy_probe.txt ;;
  narrowshort)
    alternate narrow 50 "$long_rows" 9 2 base new
    cat $o/table_narrow.txt
    timeout 40 $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt
    timeout 60 $d/new/copy_probe > $o/copy_probe.txt 2>&1; echo "copy_probe rc=$? t=$SECONDS"
    cat $o/copy_probe.txt ;;
  narrowmin)
    timeout 60 $d/new/copy_probe > $o/copy_probe.txt 2>&1; echo "copy_probe rc=$? t=$SECONDS"
    cat $o/copy_probe.txt
    alternate narrow 40 "$long_rows" 9 1 base new
    cat $o/table_narrow.txt
    timeout 40 $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt ;;
  slicedrs)
    suite test_sliced_rs ${3:-150} $d/new/fusekit_test_rs_gpu --duration=true "-tc=$sliced_cases"
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/test_sliced_rs.log | head -40 ;;
  narrowsliced)
    alternate narrow 60 "$long_rows" 9 2 base new
    cat $o/table_narrow.txt
    timeout 60 $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt
    timeout 90 $d/new/copy_probe > $o/copy_probe.txt 2>&1; echo "copy_probe rc=$? t=$SECONDS"
    cat $o/copy_probe.txt
    suite test_sliced_rs $((470 - SECONDS)) $d/new/fusekit_test_rs_gpu --duration=true "-tc=$sliced_cases"
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/test_sliced_rs.log | head -40 ;;
  slicedln)
    suite test_sliced_ln 150 $d/new/fusekit_test_ln_gpu --duration=true "-tc=$sliced_cases"
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/test_sliced_ln.log | head -40
    sanitize memcheck memcheck_sliced_ln $d/new/fusekit_test_ln_gpu "*sliced rows*" 200 ;;
  narrowsuite)
    alternate narrow 60 "$long_rows" 9 2 base new
    cat $o/table_narrow.txt
    timeout 60 $d/new/long_rows_probe narrow > $o/probe.txt 2>&1; echo "probe rc=$? t=$SECONDS"
    cat $o/probe.txt
    s=$(cd carry/c46ns/new && pwd); [ -f $s/fusekit_test_reduce_gpu ] || xz -d -k $s/fusekit_test_reduce_gpu.xz
    chmod +x $s/fusekit_test_reduce_gpu
    suite test_sliced $((570 - SECONDS)) $s/fusekit_test_reduce_gpu --duration=true \
      "-tc=*sliced*,*N from 1*,*staged and register*,*queued*,*repeatable*"
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/test_sliced.log | head -40 ;;
  suite)
    suite test_all 520 $d/new/fusekit_test_reduce_gpu --duration=true ;;
  sliced)
    suite test_sliced 330 $d/new/fusekit_test_reduce_gpu --duration=true \
      "-tc=*sliced*,*N from 1*,*staged and register*,*queued*,*repeatable*"
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/test_sliced.log | head -40
    sanitize memcheck memcheck_sliced $d/new/fusekit_test_reduce_gpu "*sliced rows*" $((560 - SECONDS)) ;;
  status)
    MEASURE_CEILINGS=1 bench status 400 $d/new/fusekit_bench_reduce \
      '^(reduce_bw/.*/(fusekit|copy)|h3_norm.*/fusekit)/gpu_throughput' 9
    tail -5 $o/status.txt ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
