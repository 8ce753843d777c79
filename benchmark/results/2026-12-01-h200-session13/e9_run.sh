#!/usr/bin/env bash
# Session 13 call e9: the landed code: the whole GEMM suite and the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd); od=$(cd "$d/../next-light-tiles" && pwd)
for f in "$d"/bin8/*.xz "$d"/bin8/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/bin8/fusekit_* "$d"/bin8/lr/fusekit-*; export LD_LIBRARY_PATH=$od
o=$OUT/${CALL:-e9}; mkdir -p $o; SECONDS=0
timeout 120 $d/bin8/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/bin8/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-e9}.tgz ${CALL:-e9}
