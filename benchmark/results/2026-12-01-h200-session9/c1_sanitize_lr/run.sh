#!/usr/bin/env bash
# Session 9, call 2: memcheck and racecheck on the small and odd cases (short last M-tiles, the
# new epilogue loops), then the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/lr/*.xz; do
  [ -f "$f" ] || continue
  [ -f "${f%.xz}" ] || xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* "$d"/lr/fusekit-*
export LD_LIBRARY_PATH=$d
o=$OUT/r2; mkdir -p $o
SECONDS=0
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear_qkv:*,fc1_swiglu: the tiny*,linear_glu:*,linear:*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 28
echo "t=$SECONDS"
cd $OUT && tar czf r2.tgz r2
