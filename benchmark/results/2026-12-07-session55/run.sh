#!/usr/bin/env bash
# Fifty-fifth session's device calls:
#   OUT=... CARRY=carry/c60 bash benchmark/results/2026-12-07-session55/run.sh STEP
# carry/c60: c59's (base/, gen/: e751806's binaries and ba53a0e's fusekit-convert; probe/probe_values),
#   probe/probe55 (probe55.cu on 923742a's headers) and new/ (fusekit_test_gemm, fusekit_bench_gemm,
#   fusekit-layer-report with the 256 x 160 segment tiles; gen's fusekit-convert).
# wide: probe55, the new kernel's tests, the layer report on new/ (weight-like checkpoint), memcheck.
# values: HEAD's layer report (gen/) on a weight-like, then a random-bit checkpoint. suite, probe55b: prepared, not run.
set -u
step=${1:?step}
source tools/ab_common.sh ${CARRY:-carry/c60}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o; cat $o/gpu.txt
pack() { (cd $OUT && tar cJf call_$step.tar.xz call_$step); }
case $step in
  wide)
    ($d/probe/probe55 20 15 && $d/probe/probe55 200 7) 2>&1 | tee $o/probe55.txt | grep -E "median|bits|BITS|one tile"; pack
    suite test_gemm_wide 150 $d/new/fusekit_test_gemm '-tc=linear: K segments*,linear_residual: long K*,out_proj: every*,fc2: every*,linear: the H3 long-K*' --duration=true; pack
    grep -E "ERROR|FAILED|failed|passed" $o/test_gemm_wide.log | head -20
    FIXTURE_VALUES=weights OUT=$o/layer_new timeout 240 bash tools/h200_layer_report.sh $d/new | grep -E "925|70 |done in|FAILED"; pack
    left=$((${WIDE_UNTIL:-430} - SECONDS)); echo "t=$SECONDS"
    ((left > 40)) && sanitize memcheck memcheck_wide $d/new/fusekit_test_gemm 'linear_residual: long K*' $left; pack ;;
  suite)
    suite test_gemm_new 200 $d/new/fusekit_test_gemm --duration=true; pack
    sanitize racecheck racecheck_wide $d/new/fusekit_test_gemm 'linear_residual: long K*' 150; pack
    sanitize synccheck synccheck_wide $d/new/fusekit_test_gemm 'linear_residual: long K*' 150; pack ;;
  probe55b)  # prepared, not run: CARRY=carry/c61 (probe/probe55b.xz: probe55.cu built with -DPROBE55B, as its header says)
    ($d/probe/probe55b 20 15 && $d/probe/probe55b 200 7) 2>&1 | tee $o/probe55b.txt | grep -E "median|bits|BITS" ;;
  values)
    for v in weights bits; do
      ((SECONDS < ${VALUES_UNTIL:-420})) || break
      FIXTURE_VALUES=$v OUT=$o/layer_${v}_$SECONDS timeout 200 bash tools/h200_layer_report.sh $d/gen | grep -E "925|70 |done in|FAILED"; pack
    done ;;
esac
echo "t=$SECONDS"
pack; rm -rf $o
