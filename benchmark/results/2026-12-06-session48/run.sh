#!/usr/bin/env bash
# Forty-eighth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-06-session48/run.sh CARRY STEP
# narrow (carry/c48v, built from wip/narrow-slices 0262ffc, test binaries relinked at f590973:
#   base/ = main's fusekit_bench_reduce, new/ = the branch's, with its RMSNorm + softmax and its
#   LayerNorm GPU test units linked alone): the new case of each op that compares the narrow and the
#   wide sliced kernels bit for bit and checks the automatic choice against the device's held
#   clusters, then one run of 9 alternating of the long rows, base/ against new/.
# gemm (carry/c48h: base/ = main's fusekit_bench_gemm (0e7dd30), glu/ = wip/glu-fragment's (87b055f, on
#   wip/epilogue-prefetch 75a1a9f) with its fusekit_test_gemm; out_proj and fc2 change by the prefetch
#   alone, fc1 by the paired epilogue): the glu build's GEMM cases that
#   reach the changed code, then out_proj, fc1 and fc2 at 70 and 925 tokens, the two builds
#   alternating twice, memcheck on the glu build's GLU cases, then (where the call started before
#   REPORT_BEFORE seconds) issue #7's layer report on glu/'s fusekit-layer-report and fusekit-convert.
# next (carry/c49g, built from main 12c8bf3: new/ = fusekit_bench_gemm, fusekit_test_gemm,
#   fusekit-layer-report and fusekit-convert): the whole GEMM suite on main's paired fc1 epilogue,
#   then issue #7's layer report (tools/h200_layer_report.sh) in what is left of 580 s.
set -u
source tools/ab_common.sh "${1:?carry}"
step=${2:?step}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
case $step in
  narrow)
    suite narrow_rs 90 $d/new/fusekit_test_rs_gpu --duration=true '-tc=*narrow and wide kernels*'
    suite narrow_ln 90 $d/new/fusekit_test_ln_gpu --duration=true '-tc=*narrow and wide kernels*'
    grep -E "^[0-9.]+ s:|ERROR|FAILED|narrow" $o/narrow_*.log | head -30
    alternate narrow 40 '^reduce_bw/.*/(8x262144|32x262144|128x65536)/fusekit/gpu_throughput' 9 1 base new
    cat $o/table_narrow.txt ;;
  gemm)
    cases='linear_glu*,fc1_swiglu*,linear_residual*,out_proj*,fc2*,linear: K segments*,linear: swapped*,activate*'
    suite test_gemm 100 $d/glu/fusekit_test_gemm --duration=true "-tc=$cases"
    grep -E "ERROR|FAILED|^[0-9.]+ s:" $o/test_gemm.log | head -30
    BENCH=fusekit_bench_gemm alternate gemm 40 "${GEMM_FILTER:-^gemm/(out_proj|fc1|fc2)/bf16/tokens=(70|925)/.*/gpu_throughput}" 15 2 base glu
    cat $o/table_gemm.txt
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    sanitize memcheck memcheck_glu $d/glu/fusekit_test_gemm 'linear_glu*,fc1_swiglu: the tiny*' 50
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    ((SECONDS < ${REPORT_BEFORE:-0})) && OUT=$o/layer timeout 290 bash tools/h200_layer_report.sh $d/glu | tail -32 ;;
  next)
    suite test_gemm_all 280 $d/new/fusekit_test_gemm --duration=true
    grep -E "ERROR|FAILED|test cases" $o/test_gemm_all.log | head -20
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    OUT=$o/layer timeout $((580 - SECONDS)) bash tools/h200_layer_report.sh $d/new | tail -32 ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
