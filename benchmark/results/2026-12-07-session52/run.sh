#!/usr/bin/env bash
# Fifty-second session's device calls (README.md lists them in order):
#   OUT=... bash benchmark/results/2026-12-07-session52/run.sh STEP
# carry/c54: new/ = fusekit_test_gemm, fusekit_bench_gemm, fusekit-layer-report and fusekit-convert
#   built from 26f44a1 (the half-swapped kernel as simplified after the fifty-first session's last run).
# main: the whole GEMM GPU suite; memcheck on the cases that run the half-swapped kernel; issue #7's
#   layer report; then out_proj and fc2 at 1, 70 and 925 tokens (gpu_throughput, 15 samples, twice).
# lasttile (prepared, not run): prepared_last_tile_whole.patch against HEAD.
# probe2: probe_interleaved.cu (the same variants and the 160-token kernel without its last tile's epilogue,
#   interleaved sample by sample).
# probe: probe_wide925.cu (256 x 160 swapped tiles, K whole, against the shipped tiles and cuBLASLt).
set -u
step=${1:?step}
source tools/ab_common.sh ${CARRY:-carry/c54}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o; cat $o/gpu.txt
MEMCHECK_CASES='linear: K segments*,linear: launched over*,out_proj and fc2: the tiny*,linear: long K and few*,linear: the H3 long-K*'
t0=$(date +%s)
pack() { (cd $OUT && tar cJf call_$step.tar.xz call_$step); }
case $step in
  main)
    suite test_gemm_all 240 $d/new/fusekit_test_gemm --duration=true
    grep -E "ERROR|FAILED|test cases" $o/test_gemm_all.log | head -20; pack
    sanitize memcheck memcheck_half $d/new/fusekit_test_gemm "$MEMCHECK_CASES" 150; pack
    OUT=$o/layer timeout 240 bash tools/h200_layer_report.sh $d/new | tail -32; pack
    FUSEKIT_GEMM_TOKENS=1,70,925 sweep h3 60 $d/new/fusekit_bench_gemm '^gemm/(out_proj|fc2)/bf16/.*/gpu_throughput' 15 2 \
      FUSEKIT_SEGMENT_TILES automatic
    cat $o/table_h3.txt ;;
  probe)  # carry/c54/probe: probe_wide925 (its source beside this script); short runs, then 1000 calls each
    ($d/probe/probe_wide925 && $d/probe/probe_wide925 1000) 2>&1 | tee $o/probe_wide925.txt
    # the same source built with -DFUSEKIT_PROBE_SKIP_LAST against headers whose 160-token kernel skips
    # each CTA's last tile's epilogue (skip_last.patch): what that exposed epilogue costs
    ($d/probe/probe_skiplast && $d/probe/probe_skiplast 1000) 2>&1 | grep -E "auto|s1 160" | tee $o/probe_skiplast.txt ;;
  probe2)  # carry/c54/probe: probe_interleaved (probe_interleaved.cu, skip_last.patch): every variant's
    # samples interleaved, medians of 15 x 20 calls, then of 15 x 200 calls
    ($d/probe/probe_interleaved && $d/probe/probe_interleaved 200) 2>&1 | tee $o/probe_interleaved.txt ;;
  lasttile)  # prepared for the next session: CARRY=carry/cNN with base/ (HEAD's four binaries) and new/ (the same
    # built with prepared_last_tile_whole.patch applied); the swapped-tile cases and sanitizers on new, then
    # 925 tokens, both builds alternating three times
    suite test_gemm_new 240 $d/new/fusekit_test_gemm --duration=true
    SWAPPED='linear: swapped*,linear: K segments*,qkv_proj:*,out_proj:*,fc2:*,linear_residual:*,linear: the H3*'
    for tool in memcheck racecheck synccheck; do sanitize $tool ${tool}_new $d/new/fusekit_test_gemm "$SWAPPED" 120; pack; done
    BENCH=fusekit_bench_gemm FUSEKIT_GEMM_TOKENS=925 alternate last 60 '^gemm/(qkv_proj|out_proj|fc2)/bf16/.*/gpu_throughput' 15 3 base new
    cat $o/table_last.txt ;;
  report)
    OUT=$o/layer timeout 300 bash tools/h200_layer_report.sh $d/${LABEL:-new} | tail -32 ;;
esac
pack; rm -rf $o
