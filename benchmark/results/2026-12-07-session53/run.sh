#!/usr/bin/env bash
# Fifty-third session's device calls (README.md lists them in order):
#   OUT=... CARRY=carry/c55 bash benchmark/results/2026-12-07-session53/run.sh STEP
# carry/c55: base/ = fusekit_test_gemm, fusekit_bench_gemm, fusekit-layer-report and fusekit-convert built
#   from b868a21 (HEAD; its 160-token kernel's fold change, 71c45d6, not run on a GPU before);
#   new/ = the same built with ../2026-12-07-session52/prepared_last_tile_whole.patch applied;
#   probe/ = probe_interleaved (../2026-12-07-session52/probe_interleaved.cu, skip_last.patch applied).
# lasttile: both GEMM GPU suites, qkv_proj, out_proj and fc2 at 925 tokens on both builds alternating
#   three times, then three sanitizers on new's swapped-tile cases.
# probe2: every probe variant's samples interleaved (medians of 15 x 20 calls, then 15 x 200).
# placement: out_proj and fc2 at 925 tokens, fused, bare and cuBLASLt, on fresh buffers six times.
# sanitize_small: racecheck and synccheck on new's smaller swapped-tile cases.
# every (prepared, not run): the residual warmed in L2 for every hand-off tile, not only the last.
# report LABEL=base|new: issue #7's layer report.
set -u
step=${1:?step}
source tools/ab_common.sh ${CARRY:-carry/c55}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o; cat $o/gpu.txt
t0=$(date +%s)
pack() { (cd $OUT && tar cJf call_$step.tar.xz call_$step); }
case $step in
  lasttile)
    suite test_gemm_base 120 $d/base/fusekit_test_gemm --duration=true
    suite test_gemm_new 120 $d/new/fusekit_test_gemm --duration=true
    grep -hE "ERROR|FAILED" $o/test_gemm_*.log | head -20; pack
    BENCH=fusekit_bench_gemm FUSEKIT_GEMM_TOKENS=925 alternate last 60 '^gemm/(qkv_proj|out_proj|fc2)/bf16/.*/gpu_throughput' 15 3 base new
    cat $o/table_last.txt; pack
    SWAPPED='linear: swapped*,linear: K segments*,qkv_proj:*,out_proj:*,fc2:*,linear_residual:*,linear: the H3*'
    for tool in memcheck racecheck synccheck; do sanitize $tool ${tool}_new $d/new/fusekit_test_gemm "$SWAPPED" 90; pack; done ;;
  probe2)
    ($d/probe/probe_interleaved && $d/probe/probe_interleaved 200) 2>&1 | tee $o/probe_interleaved.txt ;;
  placement)  # probe/probe_placement (carry/probe53/probe_placement.cu): fresh buffers a placement
    $d/probe/probe_placement 6 2>&1 | tee $o/probe_placement.txt ;;
  sanitize_small)  # racecheck and synccheck on new's smaller swapped-tile cases (the H3-size ones outlast 90 s)
    SMALL='linear: swapped*,linear: K segments*,linear: long K*,linear: repeatable*,linear_residual:*,linear_qkv: tiny*,out_proj and fc2: the tiny*,linear: launched over*'
    for tool in racecheck synccheck; do sanitize $tool ${tool}_small_new $d/new/fusekit_test_gemm "$SMALL" 100; pack; done ;;
  epilogue)  # carry/c56/probe/probe_epilogue (carry/probe53/probe_epilogue.cu): the last tile's epilogue four ways
    ($d/probe/probe_epilogue 20 15 && $d/probe/probe_epilogue 200 9) 2>&1 | tee $o/probe_epilogue.txt ;;
  candidate)  # carry/c56/new: the candidate (last tile whole + L2 prefetch); its suite and memcheck, then the report
    suite test_gemm_cand 120 $d/new/fusekit_test_gemm --duration=true
    grep -hE "ERROR|FAILED" $o/test_gemm_cand.log | head -20; pack
    SMALL='linear: swapped*,linear: K segments*,linear: long K*,linear: repeatable*,linear_residual:*,out_proj and fc2: the tiny*,out_proj: every*'
    sanitize memcheck memcheck_cand $d/new/fusekit_test_gemm "$SMALL" 120; pack
    OUT=$o/layer timeout 240 bash tools/h200_layer_report.sh $d/new | tail -32 ;;
  final)  # carry/c55/new (last tile whole, no L2 prefetch): racecheck on the residual cases, then the report
    sanitize racecheck racecheck_residual_new $d/new/fusekit_test_gemm 'linear_residual:*,out_proj and fc2: the tiny*,linear: swapped*' 120; pack
    OUT=$o/layer timeout 240 bash tools/h200_layer_report.sh $d/new | tail -32 ;;
  epilogue2)  # carry/c57/probe/probe_epilogue2 (probe_epilogue2.cu): the same and the prefetch without an eviction priority
    ($d/probe/probe_epilogue2 20 15 && $d/probe/probe_epilogue2 200 9) 2>&1 | tee $o/probe_epilogue2.txt ;;
  final2)  # carry/c58: new/ = last tile whole + the residual warmed in L2 and released; probe/probe_final
    for i in 1 2; do ($d/probe/probe_final 20 15 && $d/probe/probe_final 200 9) 2>&1 | tee $o/probe_final_$i.txt | grep -E "final|whole|head|epi|DIFFER"; done; pack
    suite test_gemm_final 120 $d/new/fusekit_test_gemm --duration=true
    grep -hE "ERROR|FAILED" $o/test_gemm_final.log | head -20; pack
    SMALL='linear: swapped*,linear: K segments*,linear: long K*,linear: repeatable*,linear_residual:*,out_proj and fc2: the tiny*,out_proj: every*'
    sanitize memcheck memcheck_final $d/new/fusekit_test_gemm "$SMALL" 90; pack
    sanitize racecheck racecheck_final $d/new/fusekit_test_gemm 'linear_residual:*,out_proj and fc2: the tiny*,linear: swapped*' 90; pack
    sanitize synccheck synccheck_final $d/new/fusekit_test_gemm 'linear_residual:*,out_proj and fc2: the tiny*,linear: swapped*,linear: K segments*' 60; pack
    OUT=$o/layer timeout 200 bash tools/h200_layer_report.sh $d/new | tail -26 ;;
  every)  # prepared for the next session, not run: CARRY=carry/cNN with new/ = the four binaries built from HEAD +
    # prepared_prefetch_every_tile.patch, probe/probe_every (probe_every_from_final.diff applied to probe_final.cu,
    # built on that tree + probe_markers_every.patch): probe twice, then the suite, sanitizers and the report
    for i in 1 2; do ($d/probe/probe_every 20 15 && $d/probe/probe_every 200 9) 2>&1 | tee $o/probe_every_$i.txt | grep -E "L2|every|whole|head|epi|DIFFER"; done; pack
    suite test_gemm_every 120 $d/new/fusekit_test_gemm --duration=true; pack
    sanitize memcheck memcheck_every $d/new/fusekit_test_gemm 'linear: swapped*,linear: K segments*,linear_residual:*,out_proj and fc2: the tiny*,out_proj: every*' 90; pack
    sanitize racecheck racecheck_every $d/new/fusekit_test_gemm 'linear_residual:*,out_proj and fc2: the tiny*,linear: swapped*' 90; pack
    OUT=$o/layer timeout 200 bash tools/h200_layer_report.sh $d/new | tail -26 ;;
  report)
    OUT=$o/layer timeout 300 bash tools/h200_layer_report.sh $d/${LABEL:-new} | tail -32 ;;
esac
pack; rm -rf $o
