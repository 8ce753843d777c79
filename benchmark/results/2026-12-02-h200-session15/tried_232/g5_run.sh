#!/usr/bin/env bash
# Session 15 call g4 (branch wip/swapped-232, an experiment): 232-token swapped tiles (fc1 at 925
# tokens: 4 token tiles of 928 rows, cuBLASLt's 128 x 232) against the 160-token ones and the
# 128 x 256 tiles, forced, alternating twice; rel_err shows whether the bits match.
set -u
d=$(cd "$(dirname "$0")" && pwd)
[ -f $d/fusekit_bench_gemm ] || xz -d -k -f $d/fusekit_bench_gemm.xz; chmod +x $d/fusekit_bench_gemm; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g4}; mkdir -p $o; SECONDS=0
run() { FUSEKIT_SWAPPED_TILES=$2 FUSEKIT_SWAPPED_232=$3 FUSEKIT_GEMM_TOKENS=768,925,1536,2048 timeout 80 $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/.*/fusekit.*/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run plain$i never off; run s160_$i always off; run s232_$i always on; done
O=$o python3 $d/ab.py plain1 s160_1 s232_1 plain2 s160_2 s232_2 | tee $o/ab.txt
grep -h "INVALID" $o/bench_*.log | head
for r in plain1 s160_1 s232_1; do python3 -c "
import json,sys
for b in json.load(open('$o/bench_$r.json'))['benchmarks']: print('$r', b['run_name'].split('/')[1:5], b.get('rel_err'))" ; done | sort -k2 | head -40
for t in; do FUSEKIT_SWAPPED_TILES=always FUSEKIT_GEMM_TOKENS=$t timeout 90 ncu --clock-control none -k regex:swapped --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/qkv_proj/bf16/.*/fusekit_bare/gpu_throughput" --benchmark_min_time=0.001 > $o/ncu_swapped_qkv_$t.txt 2>&1; echo "ncu $t rc=$? t=$SECONDS"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit Rate|L1/TEX Hit|Mem Busy|Max Bandwidth" $o/ncu_swapped_qkv_$t.txt | head -12; done
cd $OUT && tar czf ${CALL:-g4}.tgz ${CALL:-g4}
