#!/usr/bin/env bash
# Session 16 call g2: the whole suite and the layer report on g1's build (2a8ee72's code).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin/*.xz "$d"/fin/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin/fusekit_* "$d"/fin/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g2}; mkdir -p $o; SECONDS=0
timeout 130 $d/fin/fusekit_bench_gemm --require-gpu --benchmark_filter=gpu_throughput --benchmark_out=$o/bench_suite.json --benchmark_out_format=json > $o/bench_suite.txt 2> $o/bench_suite.log; echo "suite rc=$? t=$SECONDS"
OUT=$o/lr bash tools/h200_layer_report.sh $d/fin/lr 2>&1 | tail -n 27
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-g2}.tgz ${CALL:-g2}
