#!/usr/bin/env bash
# Session 13 call e6: where does the qkv epilogue's time go? ncu full set + SASS source page of the
# fused and bare qkv_proj kernels at 925 tokens (branch build; the epilogue is main's).
set -u
d=$(cd "$(dirname "$0")/../next-light-tiles" && pwd)
for f in "$d"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f" 2>/dev/null; done
chmod +x "$d"/fusekit_* ; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-e6}; mkdir -p $o; SECONDS=0
for impl in fusekit fusekit_bare; do
  FUSEKIT_GEMM_TOKENS=925 timeout 200 ncu -k regex:gemm_kernel_sm90 --launch-skip 2 --launch-count 1 --set full \
    --import-source no -o $o/qkv925_$impl $d/fusekit_bench_gemm --require-gpu --skip-ceilings --samples=2 \
    --benchmark_filter="gemm/qkv_proj/bf16/tokens=925/$impl/gpu_throughput" > $o/ncu_$impl.log 2>&1
  echo "ncu $impl rc=$? t=$SECONDS"; tail -3 $o/ncu_$impl.log
  ncu --import $o/qkv925_$impl.ncu-rep --page details > $o/details_$impl.txt 2>&1
  ncu --import $o/qkv925_$impl.ncu-rep --page source --csv --print-source sass > $o/sass_$impl.csv 2>&1
  echo "print rc=$? $(wc -c < $o/sass_$impl.csv) t=$SECONDS"
  grep -E "Duration|Warp Cycles Per Issued|Stall|Issue Slots Busy|Registers Per|No Eligible|Active Warps" $o/details_$impl.txt | head -20
done
rm -f $o/*.ncu-rep.keep
cd $OUT && tar czf ${CALL:-e6}.tgz ${CALL:-e6}
