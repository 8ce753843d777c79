#!/usr/bin/env bash
set -u
d=$(cd "$(dirname "$0")" && pwd); b=$d/base
chmod +x $b/* $d/tl/*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
timeout 120 $d/tl/timeline > $o/timeline.txt 2>&1; echo "tl rc=$? t=$SECONDS"
run() { FUSEKIT_GEMM_TOKENS=925 timeout 100 env $2 $b/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run seg3 FUSEKIT_SPLIT_K=automatic; run unsplit FUSEKIT_SPLIT_K=unsplit
grep -h "fusekit-bench" $o/bench_*.txt
cat $o/timeline.txt
