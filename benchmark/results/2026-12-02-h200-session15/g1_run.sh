#!/usr/bin/env bash
# Session 15 call g1: the 70-token timeline (branch wip/timeline-70's build) and which cuBLASLt
# kernels run the H3 shapes (ncu launch stats), on main's bench build (59fb7d1).
set -u
d=$(cd "$(dirname "$0")" && pwd)
o=$OUT/g1; mkdir -p $o; SECONDS=0
OUT=$o/timeline bash $d/next-timeline/h200_timeline70.sh $d/next-timeline > $o/timeline.log 2>&1; echo "timeline rc=$? t=$SECONDS"
cat $o/timeline/timeline70.txt | head -80
[ -f $d/fusekit_bench_gemm ] || xz -d -k -f $d/fusekit_bench_gemm.xz; chmod +x $d/fusekit_bench_gemm; export LD_LIBRARY_PATH=$d
for l in qkv_proj out_proj fc1 fc2; do for t in 70 925 4096; do
  timeout 60 ncu --clock-control none -k regex:"nvjet|xmma|cutlass|splitK|reduce" --launch-count 3 --section LaunchStats --section SpeedOfLight \
    $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/$l/bf16/tokens=$t/cublaslt/gpu_throughput" --benchmark_min_time=0.001 > $o/ncu_${l}_$t.txt 2>&1
  echo "== $l $t rc=$? t=$SECONDS"; grep -E "^  [a-zA-Z_].*\(|Cluster Size|Grid Size|Block Size|Registers Per|Duration|Dynamic Shared|Waves Per" $o/ncu_${l}_$t.txt | head -24
done; done
cd $OUT && tar czf g1.tgz g1
