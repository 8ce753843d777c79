#!/usr/bin/env bash
# Forty-ninth session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-07-session49/run.sh STEP
# all (carry/c50r: new/ = wip/narrow-slices' RMSNorm + softmax GPU unit, relinked at f590973;
#   c50f: few/ = wip/few-swapped's fusekit_bench_gemm at 9ea3285 (built before a rebase: it reports
#   ad6739b-dirty), the few-row tiles forced by
#   FUSEKIT_SWAPPED_TILES=72 (128 x 72) or wide72 (256 x 72); c50l: new/ = main 12c8bf3's
#   fusekit-layer-report and fusekit-convert, the library there b3b7baf's; or c50ln, the branch's
#   LayerNorm unit, instead of c50l): the narrow case, qkv_proj and fc1 at 70 tokens on the three
#   tiles (2 rounds), then issue #7's layer report on main in what is left of 400 s (or the
#   LayerNorm unit's narrow case).
# For the next session (wip/few-swapped's head, e42f4dc; its binaries in git-ignored carries):
# suite (carry/c51t: new/ = the branch head's fusekit_test_gemm): the whole GEMM GPU suite, then
#   memcheck on the cases that run the few-row tiles.
# report (carry/c51b: base/ = main 12c8bf3's fusekit_bench_gemm, few/ = the branch's at f618b7c
#   (no L2 hints on the few-row tiles), hints/ = the head's, with its fusekit-layer-report and
#   fusekit-convert): qkv_proj and fc1 at 70 tokens, the three alternating twice, then issue #7's
#   layer report on the head in what is left of 560 s.
set -u
step=${1:?step}
case $step in
  all)
    t0=$(date +%s)
    source tools/ab_common.sh carry/c50r
    o=$OUT/call_$step; mkdir -p $o; gpu_info $o
    suite narrow_rs 50 $d/new/fusekit_test_rs_gpu --duration=true '-tc=*narrow and wide kernels*'
    grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/narrow_*.log | head -20
    source tools/ab_common.sh carry/c50f
    sweep few 60 $d/few/fusekit_bench_gemm '^gemm/(qkv_proj|fc1)/bf16/tokens=70/.*/gpu_throughput' 15 2 \
      FUSEKIT_SWAPPED_TILES automatic 72 wide72
    cat $o/table_few.txt
    grep -iE "error|mismatch|fail" $o/few_*.txt | head
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    if [ -d carry/c50ln ]; then  # carried instead of c50l (the call's 64 MiB): the LN unit's narrow case
      source tools/ab_common.sh carry/c50ln
      suite narrow_ln 60 $d/new/fusekit_test_ln_gpu --duration=true '-tc=*narrow and wide kernels*'
      grep -E "^[0-9.]+ s:|ERROR|FAILED" $o/narrow_ln.log | head -20
    else
      source tools/ab_common.sh carry/c50l
      OUT=$o/layer timeout $((400 - $(date +%s) + t0)) bash tools/h200_layer_report.sh $d/new | tail -32
    fi ;;
  suite)
    source tools/ab_common.sh carry/c51t
    o=$OUT/call_$step; mkdir -p $o; gpu_info $o
    suite test_gemm_all 330 $d/new/fusekit_test_gemm --duration=true
    grep -E "ERROR|FAILED|test cases" $o/test_gemm_all.log | head -20
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    sanitize memcheck memcheck_few $d/new/fusekit_test_gemm 'linear: swapped*,linear: at most 64 rows*,linear_glu*,fc1_swiglu: the tiny*,linear_qkv*,QkvHeads*,linear: repeatable*' 200 ;;
  report)
    t0=$(date +%s)
    source tools/ab_common.sh carry/c51b
    o=$OUT/call_$step; mkdir -p $o; gpu_info $o
    BENCH=fusekit_bench_gemm alternate few 60 '^gemm/(qkv_proj|fc1)/bf16/tokens=70/.*/gpu_throughput' 15 2 base few hints
    cat $o/table_few.txt
    (cd $OUT && tar cJf call_$step.tar.xz call_$step)
    OUT=$o/layer timeout $((560 - $(date +%s) + t0)) bash tools/h200_layer_report.sh $d/hints | tail -32 ;;
esac
cd $OUT && tar cJf call_$step.tar.xz call_$step && rm -rf call_$step
