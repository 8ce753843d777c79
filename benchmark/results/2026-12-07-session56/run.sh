#!/usr/bin/env bash
# Fifty-sixth session's device calls:
#   OUT=... CARRY=carry/c62 bash benchmark/results/2026-12-07-session56/run.sh STEP
# carry/c62: probe/probe56 (probe56.cu on 572868e's headers, built as its header says), probe/probe56b
#   (-DPROBE56B on the branch's headers, 582a61d); new/ = fusekit_test_gemm, fusekit_bench_gemm,
#   fusekit-layer-report from branch wide160-fragment-epilogue (call 1 ran its first build; the carry
#   now holds 582a61d's); base/ = c60's gen/ (e751806's fusekit-layer-report: HEAD's kernels) and every
#   fusekit-convert (ba53a0e's: the same checkpoint bytes as HEAD's).
# main: probe56 (bits, then timings), the new kernel's GPU tests, the layer report on new/ and on base/.
# b: the second build (see its step), its tests, probe56b (-DPROBE56B: the library's calls) and its layer report.
# reports: the layer report on new/ and base/, alternating, twice each.
# sanitize: memcheck, racecheck and synccheck on the new tiles' test; bench: out_proj and fc2 in the suite.
set -u
step=${1:?step}
source tools/ab_common.sh ${CARRY:-carry/c62}
o=$OUT/call_$step; mkdir -p $o; gpu_info $o; cat $o/gpu.txt
pack() { (cd $OUT && tar cJf call_$step.tar.xz call_$step); }
report() {  # report LABEL DIR
  ((SECONDS < ${REPORT_UNTIL:-480})) || { echo "skip report $1"; return; }
  FIXTURE_VALUES=weights OUT=$o/layer_$1 timeout 200 bash tools/h200_layer_report.sh $2 | grep -E "925|70 |done in|FAILED"; pack
}
case $step in
  main)  # most needed first; each later step only while time is left
    suite test_gemm_new 170 $d/new/fusekit_test_gemm '-tc=linear_residual*,out_proj*,fc2*,linear: K segments*,linear: the H3*,linear: identity*,linear: long K*' --duration=true; pack
    grep -E "ERROR|FAILED|failed|passed" $o/test_gemm_new.log | head -20
    REPORT_UNTIL=300 report new $d/new
    timeout 60 $d/probe/probe56 1 0 > $o/bits.txt 2>&1; echo "probe bits rc=$? equal $(grep -c 'bits equal' $o/bits.txt)"; grep -E "DIFFER|rror" $o/bits.txt | head
    (timeout 60 $d/probe/probe56 20 15 && timeout 60 $d/probe/probe56 200 7) 2>&1 | tee $o/probe56.txt | grep -E "median|rror"; pack
    REPORT_UNTIL=330 report base $d/base
    left=$((${MAIN_UNTIL:-540} - SECONDS)); ((left > 40)) && sanitize memcheck memcheck_new $d/new/fusekit_test_gemm 'linear_residual: plain*,linear_residual: an index*' $left; pack ;;
  b)  # after the first call: the box order, the gate table through shared memory, a half's store while the other computes
    suite test_gemm_b 90 $d/new/fusekit_test_gemm '-tc=linear_residual*,out_proj*,fc2*,linear: the H3*' --duration=true; pack
    grep -E "ERROR|FAILED|failed|passed" $o/test_gemm_b.log | head -20
    (timeout 60 $d/probe/probe56b 20 15 && timeout 60 $d/probe/probe56b 200 7) 2>&1 | tee $o/probe56b.txt | grep -E "median|rror|library"; pack
    REPORT_UNTIL=200 report new $d/new
    left=$((${B_UNTIL:-270} - SECONDS)); ((left > 30)) && sanitize memcheck memcheck_b $d/new/fusekit_test_gemm 'linear_residual: plain*,linear_residual: an index*' $left; pack ;;
  probe56b)  # the last device seconds: probe56b alone
    (timeout 35 $d/probe/probe56b 20 15 && timeout 35 $d/probe/probe56b 100 5) 2>&1 | tee $o/probe56b.txt | grep -E "median|rror|library"; pack ;;
  reports)  # prepared: the report on the branch and on HEAD, alternating, twice each (a single run may draw a kernel's slow mode)
    for r in 1 2; do REPORT_UNTIL=500 report new_$r $d/new; REPORT_UNTIL=500 report base_$r $d/base; done ;;
  sanitize)
    for tool in memcheck racecheck synccheck; do
      sanitize $tool ${tool}_new $d/new/fusekit_test_gemm 'linear_residual: the 256 x 160*,linear_residual: an index*,linear_residual: plain*' 150; pack
    done ;;
  suite)
    suite test_gemm_all 300 $d/new/fusekit_test_gemm --duration=true; pack ;;
esac
echo "t=$SECONDS"
pack; rm -rf $o
