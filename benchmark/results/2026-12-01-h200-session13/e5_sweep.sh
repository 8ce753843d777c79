#!/usr/bin/env bash
# Session 13 call e5: is the light pair active and what does a light tile cost? Token sweep of
# bare qkv_proj and fc1 for the three builds (new = split+pairs, split = pairs off, old = 6de7a50),
# plus ncu grid size / duration at 150 and 925 tokens.
set -u
d=$(cd "$(dirname "$0")/../next-light-tiles" && pwd)
for f in "$d"/*.xz; do xz -d -k -f "$f" 2>/dev/null; done
chmod +x "$d"/fusekit_* ; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-e5}; mkdir -p $o; SECONDS=0
export FUSEKIT_GEMM_TOKENS=128,150,192,256,896,925,1024
F='gemm/(qkv_proj|fc1)/bf16/tokens=[0-9]+/fusekit_bare/gpu_throughput'
run() { timeout 150 $2 --require-gpu --skip-ceilings --benchmark_filter="$F" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do
  run new$i $d/fusekit_bench_gemm
  FUSEKIT_LIGHT_PAIRS=off run split$i $d/fusekit_bench_gemm
  FUSEKIT_LIGHT_PAIRS=off run old$i $d/fusekit_bench_gemm_e1
done
O=$o python3 $d/ab.py new1 split1 old1 new2 split2 old2 | tee $o/ab.txt
for t in 150 925; do
 for v in new split; do
  env $([ $v = split ] && echo FUSEKIT_LIGHT_PAIRS=off) FUSEKIT_GEMM_TOKENS=$t timeout 100 ncu -k regex:gemm_kernel_sm90 --launch-count 3 --metrics launch__grid_size,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed \
   $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/qkv_proj/bf16/tokens=$t/fusekit_bare/gpu_throughput" --samples=2 > $o/ncu_${v}_$t.txt 2>&1
  echo "ncu $v $t rc=$? t=$SECONDS"; grep -E "launch__grid_size|gpu__time_duration|tensor" $o/ncu_${v}_$t.txt | head -6
 done
done
cd $OUT && tar czf ${CALL:-e5}.tgz ${CALL:-e5}
