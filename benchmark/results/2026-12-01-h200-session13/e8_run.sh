#!/usr/bin/env bash
# Session 13 call e8: QkvHeads with one multiply and rsqrtf a row (was IEEE / head_dim and 1/sqrtf).
# GPU suite; qkv_proj new (this tree) vs old (next-light-tiles build = main 40fd5ec) alternating 3x.
set -u
d=$(cd "$(dirname "$0")" && pwd); od=$(cd "$d/../next-light-tiles" && pwd)
for f in "$d"/bin8/*.xz "$od"/fusekit_bench_gemm.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/bin8/fusekit_* "$od"/fusekit_bench_gemm; export LD_LIBRARY_PATH=$od
o=$OUT/${CALL:-e8}; mkdir -p $o; SECONDS=0
timeout 200 $d/bin8/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_hopper.log | head -20
run() { timeout 120 $2 --require-gpu --skip-ceilings --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
Q='gemm/qkv_proj/.*/fusekit/gpu_throughput'
for i in 1 2 3; do run new$i $d/bin8/fusekit_bench_gemm $Q; run old$i $od/fusekit_bench_gemm $Q; done
O=$o python3 $od/ab.py new1 old1 new2 old2 new3 old3 | tee $o/ab.txt
cd $OUT && tar czf ${CALL:-e8}.tgz ${CALL:-e8}
