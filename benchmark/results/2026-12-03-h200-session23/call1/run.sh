#!/usr/bin/env bash
# Session 23 call 1: is the remote arrive's .release.cluster what made multicast slow?
# (1) a micro-benchmark of remote arrives, .release.cluster vs the default, and their SASS;
# (2) out_proj / fc2 at 37 and 70 tokens: narrow (main's kernel) against thin tiles in clusters
# of 4 (b4) and 2 (b2) sharing token boxes by multicast, with the default arrive, alternating twice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
chmod +x $d/arrive_cost $d/b4/* $d/b2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
$d/arrive_cost | tee $o/arrive_cost.txt
cuobjdump -sass $d/arrive_cost.cubin > $o/arrive_cost.sass 2>&1
grep -nE 'Function|MEMBAR|FENCE|SYNCS|ERRBAR|CCTL|UCGABAR' $o/arrive_cost.sass | head -40
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_SEGMENT_TILES=$3 timeout 60 $d/$2 --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run narrow$i b4/fusekit_bench_gemm narrow; run thin4_$i b4/fusekit_bench_gemm thin; run thin2_$i b2/fusekit_bench_gemm thin; done
O=$o python3 $d/ab.py narrow1 thin4_1 thin2_1 narrow2 thin4_2 thin2_2 | tee $o/ab.txt
echo "t=$SECONDS"
cd $OUT && tar cJf call1.tar.xz call1
