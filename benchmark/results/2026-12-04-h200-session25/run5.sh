#!/usr/bin/env bash
# Session 25 call 5: register splits of the hand-off kernel (96/200 = new, 88/208, 72/216) against base, 925 tokens.
set -u
d=$(cd "$(dirname "$0")" && pwd)
chmod +x $d/base/* $d/new/* $d/v88/* $d/v72/*; export LD_LIBRARY_PATH=$d
o=$OUT/call5; mkdir -p $o; SECONDS=0
run() { FUSEKIT_GEMM_TOKENS=925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 base; run n1 new; run a1 v88; run b1 v72; run base2 base; run n2 new; run a2 v88; run b2 v72
O=$o python3 $d/ab.py base1 n1 a1 b1 base2 n2 a2 b2 | tee $o/ab.txt
