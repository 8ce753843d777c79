#!/usr/bin/env bash
# Session 7, call 3: where qkv_proj's fused epilogue spends its time (283fb25's build): ncu of
# one fused launch at 70 and at 4096 tokens, per-instruction stall samples.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/fusekit_bench_gemm.xz 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $d/fusekit_bench_gemm.xz
chmod +x $d/fusekit_bench_gemm
export LD_LIBRARY_PATH=$d
o=$OUT/q3; mkdir -p $o
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for t in 70 4096; do
  for impl in fusekit fusekit_bare; do
    n=qkv${t}_$impl
    timeout 200 $NCU --clock-control none --set full --import-source no -k regex:gemm_kernel_sm90 -c 1 -o $o/$n \
      $d/fusekit_bench_gemm --skip-ceilings --benchmark_filter="qkv_proj/bf16/tokens=$t/$impl/gpu_throughput" > $o/$n.log 2>&1
    echo "$n rc=$?"
    $NCU -i $o/$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/$n.sass.csv.gz
    $NCU -i $o/$n.ncu-rep --page details > $o/$n.details.txt 2>&1
    grep -E "Duration|Registers Per|Achieved Occupancy|Local Memory" $o/$n.details.txt | head -6
    rm -f $o/$n.ncu-rep
  done
done
cd $OUT && tar czf q3.tgz q3
