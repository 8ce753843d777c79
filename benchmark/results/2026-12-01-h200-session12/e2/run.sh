#!/usr/bin/env bash
# Session 12, call 2 (e2): QkvHeads with the next rows' cos/sin loads in flight during a round
# (new) against e1's build with FUSEKIT_LIGHT_PAIRS=off (= 6de7a50's code), qkv_proj only,
# alternating 3 times; light pairs on/off again at 925 tokens; what a light tile costs (896-1024
# tokens, bare, pairs off); GPU suite and memcheck of the new build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* 2>/dev/null
export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-e2}; mkdir -p $o
SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc='QkvHeads*,linear_qkv:*,qkv_proj: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
run() { # name bin filter [extra]
  timeout 100 $2 --require-gpu --skip-ceilings --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
q='qkv_proj.*gpu_throughput'
for i in 1 2 3; do
  run new$i $d/fusekit_bench_gemm "$q"
  FUSEKIT_LIGHT_PAIRS=off run old$i $d/fusekit_bench_gemm_e1 "$q"
done
O=$o python3 $d/ab.py new1 old1 new2 old2 new3 old3 | tee $o/ab.txt
export FUSEKIT_GEMM_TOKENS=925
for i in 1 2 3; do
  run pairs$i $d/fusekit_bench_gemm_e1 "qkv_proj.*gpu_throughput"
  FUSEKIT_LIGHT_PAIRS=off run off$i $d/fusekit_bench_gemm_e1 "qkv_proj.*gpu_throughput"
done
O=$o python3 $d/ab.py pairs1 off1 pairs2 off2 pairs3 off3 | tee $o/ab_pairs.txt
FUSEKIT_GEMM_TOKENS=896,925,960,1024 FUSEKIT_LIGHT_PAIRS=off run sweep $d/fusekit_bench_gemm_e1 '(qkv_proj|fc1).*fusekit_bare.*gpu_throughput'
O=$o python3 $d/ab.py sweep | tee $o/sweep.txt
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e2}.tgz ${CALL:-e2}
