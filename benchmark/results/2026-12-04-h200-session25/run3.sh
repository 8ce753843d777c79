#!/usr/bin/env bash
# Session 25 call 3: 160-token tiles hand their epilogue to the producer warpgroup's spare warps.
set -u
d=$(cd "$(dirname "$0")" && pwd)
chmod +x $d/base/* $d/new/* $d/tl2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o; SECONDS=0
timeout 120 $d/tl2/timeline > $o/timeline_new.txt 2>&1; echo "tl rc=$? t=$SECONDS"
run() { FUSEKIT_GEMM_TOKENS=925 timeout 150 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/.*/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 base; run new1 new; run base2 base; run new2 new
O=$o python3 $d/ab.py base1 new1 base2 new2 | tee $o/ab.txt
grep -h "mean over\|==" $o/timeline_new.txt
grep -h "rel_err" $o/bench_new1.txt | head -12
