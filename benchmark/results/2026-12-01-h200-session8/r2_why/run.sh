#!/usr/bin/env bash
# Session 8, call 2: why the split tiles did not help. out_proj/fc2 at 70 and 925 tokens:
# new build forced whole (S = 3 folded in one CTA) vs automatic vs old (S = 2); then ncu of
# out_proj at 70 and 925 (new, fused) and cuBLASLt's kernel at 70.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/r2; mkdir -p $o
SECONDS=0
F='(out_proj|fc2)/bf16/tokens=(70|925)/fusekit.*/gpu_throughput'
run() { # name bin [extra]
  timeout 100 $2 --require-gpu --skip-ceilings --benchmark_filter="$F" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$? t=$SECONDS"
}
FUSEKIT_SPLIT_K=whole run whole1 $d/fusekit_bench_gemm
run auto1 $d/fusekit_bench_gemm
run old1 $d/fusekit_bench_gemm_old
FUSEKIT_SPLIT_K=whole run whole2 $d/fusekit_bench_gemm
run auto2 $d/fusekit_bench_gemm
run old2 $d/fusekit_bench_gemm_old
O=$o python3 $d/ab.py whole1 auto1 old1 whole2 auto2 old2 | tee $o/ab.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis"
for c in out_proj/bf16/tokens=70/fusekit/ out_proj/bf16/tokens=925/fusekit/; do
  n=$(echo $c | tr '/=' '__')
  timeout 90 $NCU --clock-control none $SEC -k regex:gemm_kernel_sm90 -c 1 $d/fusekit_bench_gemm --skip-ceilings --benchmark_filter="${c}gpu_throughput" > $o/ncu_$n.txt 2>&1
  echo "ncu $n rc=$? t=$SECONDS"
done
timeout 90 $NCU --clock-control none --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis -c 8 $d/fusekit_bench_gemm --skip-ceilings --benchmark_filter="out_proj/bf16/tokens=70/cublaslt/gpu_throughput" > $o/ncu_cublas70.txt 2>&1
echo "ncu cublas rc=$? t=$SECONDS"
cd $OUT && tar czf r2.tgz r2
