#!/usr/bin/env bash
# Fifty-fourth session's device calls (README.md lists them in order):
#   OUT=... CARRY=carry/c59 bash benchmark/results/2026-12-07-session54/run.sh STEP
# carry/c59: base/ = fusekit_test_gemm, fusekit_bench_gemm, fusekit-layer-report and fusekit-convert built
#   from e751806 (HEAD); new/ = the same with ../2026-12-07-session53/prepared_prefetch_every_tile.patch
#   and the last tile's residual runs loaded in one round (AccTile::spare_registers: candidate.patch);
#   probe/probe54 (carry/probe54/probe54.cu on new's tree + probe_markers54.patch).
# first: the layer report on HEAD, probe54 twice, new's report where time is left.
# values (prepared, not run): the report on weight-like and on random-bit checkpoints (gen/: HEAD's
#   fusekit-layer-report, fusekit-convert from ba53a0e). values_probe (prepared): probe_values.
# probe_suite: probe and suite. suite: new's GEMM GPU suite, memcheck and racecheck on its swapped-tile and residual cases.
set -u
step=${1:?step}
source tools/ab_common.sh ${CARRY:-carry/c59}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o; cat $o/gpu.txt
pack() { (cd $OUT && tar cJf call_$step.tar.xz call_$step); }
probe_twice() {  # probe54's short and sustained rounds, twice
  for i in 1 2; do ($d/probe/probe54 20 15 && $d/probe/probe54 200 9) 2>&1 | tee $o/probe54_$i.txt | grep -E "median|DIFFER"; done
}
case $step in
  first)
    OUT=$o/layer_base timeout 230 bash tools/h200_layer_report.sh $d/base | tail -28; pack
    probe_twice; pack
    left=$((560 - SECONDS)); echo "t=$SECONDS"
    ((left > 150)) && OUT=$o/layer_new timeout $left bash tools/h200_layer_report.sh $d/new | tail -28 ;;
  probe_suite)
    probe_twice; pack
    ;&
  suite)
    suite test_gemm_new 120 $d/new/fusekit_test_gemm --duration=true; pack
    sanitize memcheck memcheck_new $d/new/fusekit_test_gemm 'linear: swapped*,linear: K segments*,linear_residual:*,out_proj and fc2: the tiny*,out_proj: every*' 90; pack
    sanitize racecheck racecheck_new $d/new/fusekit_test_gemm 'linear_residual:*,out_proj and fc2: the tiny*,linear: swapped*' 90; pack ;;
  values)  # gen/ = base's fusekit-layer-report + fusekit-convert with --values (the weight-like fixture)
    for v in weights bits weights; do
      ((SECONDS < ${VALUES_UNTIL:-420})) || break
      FIXTURE_VALUES=$v OUT=$o/layer_${v}_$SECONDS timeout 200 bash tools/h200_layer_report.sh $d/gen | grep -E "925|70 |done in|FAILED"; pack
    done ;;
  values_probe)  # prepared, not run: probe/probe_values (carry/probe54/probe_values.cu on HEAD's headers)
    ($d/probe/probe_values 20 15 && $d/probe/probe_values 200 9) 2>&1 | tee $o/probe_values.txt | grep median ;;
  report)
    OUT=$o/layer timeout 300 bash tools/h200_layer_report.sh $d/${LABEL:-new} | tail -32 ;;
esac
echo "t=$SECONDS"
pack; rm -rf $o
