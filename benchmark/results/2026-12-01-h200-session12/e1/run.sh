#!/usr/bin/env bash
# Session 12, call 1 (e1): light tile pairs (tile_scheduler.hpp). GPU suite, memcheck and
# racecheck on the pairing cases, the whole suite with pairs (default) and without
# (FUSEKIT_LIGHT_PAIRS=off, same binary) alternating twice, the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* 2>/dev/null; chmod +x "$d"/lr/fusekit-* 2>/dev/null
export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-e1}; mkdir -p $o
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
cases='linear: light*,qkv_proj: every*,linear: identity*,linear: repeatable*'
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: light*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { # name [extra]
  timeout 150 $d/fusekit_bench_gemm --require-gpu ${2:-} --benchmark_filter="${F:-gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
run pairs1
FUSEKIT_LIGHT_PAIRS=off run off1 --skip-ceilings
run pairs2 --skip-ceilings
FUSEKIT_LIGHT_PAIRS=off run off2 --skip-ceilings
O=$o python3 $d/ab.py pairs1 off1 pairs2 off2 | tee $o/ab.txt
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e1}.tgz ${CALL:-e1}
