#!/usr/bin/env bash
# Fifty-first session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-07-session51/run.sh STEP
# carry/c53: new/ = fusekit_test_gemm, fusekit_bench_gemm, fusekit-layer-report and fusekit-convert of
#   the build under test: few-row calls of long, narrow weights (out_proj and fc2 at 70 tokens) on the
#   half-swapped kernel (64-row W halves over the whole K, the K segments folded in the registers).
# main: the whole GEMM GPU suite; out_proj and fc2 at 70 tokens (TOKENS=list: those) with the launcher's tiles against the
#   128 x 128 few-row K-segment kernel (FUSEKIT_SEGMENT_TILES=automatic|narrow), alternating twice;
#   issue #7's layer report; then memcheck on the cases that run the new kernel in what is left.
# seg925: out_proj and fc2 at 925 tokens on each tile kind of long, narrow weights (automatic = swapped 160-token
#   tiles, wide, narrow), alternating twice.
set -u
step=${1:?step}
source tools/ab_common.sh carry/c53
o=$OUT/call_$step; mkdir -p $o; gpu_info $o
MEMCHECK_CASES='linear: K segments*,linear: launched over*,out_proj and fc2: the tiny*,linear: long K and few*,linear: the H3 long-K*'
t0=$(date +%s)
case $step in
  main)
    suite test_gemm_all 240 $d/new/fusekit_test_gemm --duration=true
    grep -E "ERROR|FAILED|test cases" $o/test_gemm_all.log | head -20
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    FUSEKIT_GEMM_TOKENS=${TOKENS:-70} sweep seg 60 $d/new/fusekit_bench_gemm '^gemm/(out_proj|fc2)/bf16/.*/gpu_throughput' 15 2 \
      FUSEKIT_SEGMENT_TILES automatic narrow
    cat $o/table_seg.txt
    grep -iE "error|mismatch|fail" $o/seg_*.txt | head
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    OUT=$o/layer timeout 300 bash tools/h200_layer_report.sh $d/new | tail -32
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    left=$((${CALL_LIMIT:-580} - $(date +%s) + t0)); [ $left -gt 30 ] && sanitize memcheck memcheck_half $d/new/fusekit_test_gemm "$MEMCHECK_CASES" $left ;;
  seg925)
    FUSEKIT_GEMM_TOKENS=925 sweep seg925 40 $d/new/fusekit_bench_gemm '^gemm/(out_proj|fc2)/bf16/.*/gpu_throughput' 15 2 \
      FUSEKIT_SEGMENT_TILES automatic wide narrow
    cat $o/table_seg925.txt ;;
  report)
    OUT=$o/layer timeout 300 bash tools/h200_layer_report.sh $d/${LABEL:-new} | tail -32 ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
