#!/usr/bin/env bash
# Session 27 call 2: did the pairs run? ncu launch stats + speed of light of the bare out_proj kernel at 925 tokens, pairs on and off.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/new/*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
for p in on off; do
FUSEKIT_SWAPPED_PAIRS=$p FUSEKIT_GEMM_TOKENS=925 timeout 120 ncu --clock-control none --kernel-name regex:swapped --launch-skip 3 --launch-count 1 --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics sm__cycles_elapsed.avg.per_second,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__inst_executed.sum,launch__cluster_dim_x,launch__grid_size \
  $d/new/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/out_proj/bf16/tokens=925/fusekit_bare/gpu_throughput" > $o/ncu_$p.txt 2>&1; echo "ncu $p rc=$? t=$SECONDS"
grep -E "Cluster|Grid Size|Duration|SM Frequency|Elapsed Cycles|cluster_dim|grid_size|per_second|xbar2l1tex|srcunit_tex|inst_executed|L2 Cache Throughput|DRAM Through|Compute \(SM\)" $o/ncu_$p.txt | head -30
done
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
