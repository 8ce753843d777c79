#!/usr/bin/env bash
# NOT YET RUN (the device was withdrawn in session 12 before this call). Copy into a git-ignored
# carry folder beside fusekit_test_gemm.xz and fusekit_bench_gemm.xz built from this branch,
# fusekit_bench_gemm_e1.xz (6de7a50's code plus the FUSEKIT_LIGHT_PAIRS switch), ab.py and
# libbenchmark.so.1debian (and lr/ with fusekit-layer-report.xz and fusekit-convert.xz built
# from this branch, for the layer report); run as `CALL=e4 bash <carry>/h200_light_tiles_ab.sh`.
# Light tiles split by N between the consumers (m64n128 each) + light pairs. GPU suite, memcheck,
# racecheck; the whole suite: new (split + pairs), new with FUSEKIT_LIGHT_PAIRS=off (split only),
# e1's build with pairs off (= 6de7a50's code), twice; the layer report on the new build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* 2>/dev/null; chmod +x "$d"/lr/fusekit-* 2>/dev/null
export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-e4}; mkdir -p $o
SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: light*,qkv_proj: every*,linear: identity*,linear: repeatable*,fc1_swiglu: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: light*,linear: repeatable*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { # name bin [extra]
  timeout 120 $2 --require-gpu ${3:-} --benchmark_filter="gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
for i in 1 2; do
  run new$i $d/fusekit_bench_gemm $([ $i = 1 ] || echo --skip-ceilings)
  FUSEKIT_LIGHT_PAIRS=off run split$i $d/fusekit_bench_gemm --skip-ceilings
  FUSEKIT_LIGHT_PAIRS=off run old$i $d/fusekit_bench_gemm_e1 --skip-ceilings
done
O=$o python3 $d/ab.py new1 split1 old1 new2 split2 old2 | tee $o/ab.txt
[ -d "$d/lr" ] && OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e4}.tgz ${CALL:-e4}
