#!/usr/bin/env bash
# Session 32 call 5: does ptxas write the epilogue's 16-byte stores whole? SASS of v.cubin (five
# ways to write one store8), of exp2/fusekit_bench_gemm (store8 through a 128-bit register), and
# an A/B at 925 tokens against main (bin/) if exp2 has fewer STG.E; the same for the row kernels'
# store_aligned (exp3/, on 3972929) against 3972929 (exp/).
set -u
source "$(dirname "$0")/common.sh"
for f in "$d"/exp2/*.xz "$d"/exp3/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done; chmod +x $d/exp2/* $d/exp3/*
o=$OUT/call5; mkdir -p $o; gpu_info $o
for fn in v1 v2 v3 v4 v5; do
  echo "$fn: $(cuobjdump -sass -fun "_Z2${fn}1PN7fusekit4gemm7AccTileE" $d/v.cubin 2>/dev/null | grep -oE 'STG\.E[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"
done | tee $o/variants.txt
cuobjdump -sass $d/v.cubin > $o/v.sass 2>&1
for b in bin exp2; do echo "$b: $(cuobjdump -sass $d/$b/fusekit_bench_gemm | grep -oE 'STG\.E[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"; done | tee $o/stores.txt
if grep -q "exp2:.* 1[0-9][0-9] STG.E " $o/stores.txt || ! grep -q "exp2: *689 STG.E " $o/stores.txt; then
  G='^gemm/(qkv_proj|out_proj|fc1|fc2)/bf16/tokens=925/(fusekit|fusekit_bare)/gpu_throughput/'
  for r in 1 2; do for b in bin exp2; do
    FUSEKIT_GEMM_TOKENS=925 timeout 60 $d/$b/fusekit_bench_gemm --require-gpu --skip-ceilings --samples=15 --benchmark_filter="$G" \
      --benchmark_out=$o/gemm_${b}_$r.json --benchmark_out_format=json > $o/gemm_${b}_$r.txt 2>&1
    echo "gemm $b $r rc=$? t=$SECONDS"
  done; done
fi
for b in exp exp3; do echo "$b reduce: $(cuobjdump -sass $d/$b/fusekit_bench_reduce | grep -oE 'STG\.E[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"; done | tee -a $o/stores.txt
if ! grep -q "exp3 reduce: *1150 STG.E " $o/stores.txt; then
  R='^reduce_bw/.*/fusekit/gpu_throughput'
  for r in 1 2; do for b in exp exp3; do
    timeout 100 $d/$b/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$R" \
      --benchmark_out=$o/reduce_${b}_$r.json --benchmark_out_format=json > /dev/null 2> $o/reduce_${b}_$r.err
    echo "reduce $b $r rc=$? t=$SECONDS"
  done; done
fi
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
