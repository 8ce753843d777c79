#!/usr/bin/env bash
# Session 8, call 4: the committed candidate (split tiles through a global workspace, the 7-stage
# ring for one-k-range CTAs, no tail split at 925 tokens). GPU suite, the whole benchmark suite
# twice (gpu_throughput; ceilings measured in the first), and the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_* "$d"/lr/*
export LD_LIBRARY_PATH=$d
o=$OUT/r4; mkdir -p $o
SECONDS=0
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
for r in 1 2; do
  timeout 100 $d/fusekit_bench_gemm --require-gpu $([ $r = 2 ] && echo --skip-ceilings) --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_new$r.json --benchmark_out_format=json > $o/bench_new$r.txt 2> $o/bench_new$r.log
  echo "bench $r rc=$? t=$SECONDS"
done
cp $d/ab.py $o/ 2>/dev/null; O=$o python3 $d/ab.py new1 new2 > $o/ab.txt
OUT=$o/lr bash tools/h200_layer_report.sh $d/lr 2>&1 | tail -n 30
echo "t=$SECONDS"
cd $OUT && tar czf r4.tgz r4
