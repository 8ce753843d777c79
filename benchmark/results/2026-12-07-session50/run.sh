#!/usr/bin/env bash
# Fiftieth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-07-session50/run.sh STEP
# carry/c52: new/ = fusekit_test_gemm, fusekit_bench_gemm, fusekit-layer-report and fusekit-convert of
#   the build under test, main 8762250: the few-row calls on 72-token swapped tiles (128 x 72 for fc1,
#   256 x 72 for qkv_proj) and the few-row K-segment calls (out_proj, fc2) on 128 x 72 tiles, one
#   K segment a CTA, folded in shares.
# main: the whole GEMM GPU suite; qkv_proj and fc1 at 70 tokens with the launcher's tiles against the
#   128 x 256 ones (FUSEKIT_SWAPPED_TILES=automatic|never), out_proj and fc2 at 70 tokens against the
#   128 x 128 few-row kernel (FUSEKIT_SEGMENT_TILES=automatic|narrow), alternating twice; then
#   memcheck on the cases that run the new kernels in what is left of 580 s.
# report: issue #7's layer report, then memcheck again in what is left of 580 s.
set -u
step=${1:?step}
source tools/ab_common.sh carry/c52
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
MEMCHECK_CASES='linear: swapped*,linear: K segments*,linear: launched over*,linear_glu: a partial*,linear_glu: a strided*,out_proj and fc2: the tiny*,linear_qkv: tiny*'
case $step in
  main)
    t0=$(date +%s)
    suite test_gemm_all 300 $d/new/fusekit_test_gemm --duration=true
    grep -E "ERROR|FAILED|test cases" $o/test_gemm_all.log | head -20
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    sweep few 40 $d/new/fusekit_bench_gemm '^gemm/(qkv_proj|fc1)/bf16/tokens=70/.*/gpu_throughput' 15 2 \
      FUSEKIT_SWAPPED_TILES automatic never
    cat $o/table_few.txt
    sweep seg 40 $d/new/fusekit_bench_gemm '^gemm/(out_proj|fc2)/bf16/tokens=70/.*/gpu_throughput' 15 2 \
      FUSEKIT_SEGMENT_TILES automatic narrow
    cat $o/table_seg.txt
    grep -iE "error|mismatch|fail" $o/few_*.txt $o/seg_*.txt | head
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    left=$((${CALL_LIMIT:-580} - $(date +%s) + t0)); [ $left -gt 30 ] && sanitize memcheck memcheck_few $d/new/fusekit_test_gemm "$MEMCHECK_CASES" $left ;;
  report)
    t0=$(date +%s)
    OUT=$o/layer timeout 330 bash tools/h200_layer_report.sh $d/new | tail -32
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    left=$((${CALL_LIMIT:-580} - $(date +%s) + t0)); [ $left -gt 30 ] && sanitize memcheck memcheck_few $d/new/fusekit_test_gemm "$MEMCHECK_CASES" $left ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
