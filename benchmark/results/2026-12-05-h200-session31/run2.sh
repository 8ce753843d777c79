#!/usr/bin/env bash
# Call 2: the row ops' A/B.
#  (a) sliced rows (N = 65536, 262144) at 8 (main's default), 4, 2 and 1 vectors a thread
#      (FUSEKIT_SLICE_VPT; below 8 up to 1024 threads a CTA), and the register clusters forced;
#  (b) wip/ln-affine-fma (fma/) against main (bin/): LayerNorm's affine as one FMA, RMSNorm as control;
#  (c) ncu of the sliced kernel at 8 and 2 vectors a thread.
#   OUT=... bash carry/s31/run2.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call2; mkdir -p $o; gpu_info $o
L='^reduce_bw/.*/(128x65536|8x262144|32x262144)/fusekit/gpu_throughput'
bench() {  # label binary filter [VAR=V...]
  local label=$1 bin=$2 filter=$3; shift 3
  env "$@" timeout 90 $bin --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$filter" \
    --benchmark_out=$o/sweep_$label.json --benchmark_out_format=json > /dev/null 2> $o/sweep_$label.err
  echo "$label rc=$? t=$SECONDS"
}
for r in 1 2; do
  bench vpt8_$r $B/fusekit_bench_reduce "$L"
  bench vpt4_$r $B/fusekit_bench_reduce "$L" FUSEKIT_SLICE_VPT=4
  bench vpt2_$r $B/fusekit_bench_reduce "$L" FUSEKIT_SLICE_VPT=2
  bench vpt1_$r $B/fusekit_bench_reduce "$L" FUSEKIT_SLICE_VPT=1
  bench regs_$r $B/fusekit_bench_reduce "$L" FUSEKIT_ROW_KERNEL=registers
done
python3 $d/ab_reduce.py $o vpt8 vpt4 vpt2 vpt1 regs | tee $o/table_vpt.txt
M='^((reduce|reduce_bw)/(layer_norm|rms_norm)/.*|h3_norm/.*)/fusekit/gpu_throughput'
for r in 1 2; do
  bench main_$r $B/fusekit_bench_reduce "$M"
  bench fma_$r $d/fma/fusekit_bench_reduce "$M"
done
python3 $d/ab_reduce.py $o main fma | tee $o/table_fma.txt
# ncu of one launch each: the 8-row sliced LayerNorm and the 128-row sliced softmax, 8 and 2 vectors a thread.
for k in "ln_bf16_8:8:layer_norm/bf16/8x262144" "ln_bf16_8:2:layer_norm/bf16/8x262144" "softmax_bf16_128:8:softmax/bf16/128x65536" "softmax_bf16_128:2:softmax/bf16/128x65536"; do
  IFS=: read -r name vpt shape <<< "$k"; f=$o/ncu_${name}_vpt$vpt.txt
  FUSEKIT_SLICE_VPT=$vpt timeout 90 ncu --set full --clock-control none -k regex:'staged_row_kernel' --launch-skip 4 --launch-count 1 \
    $B/fusekit_bench_reduce --require-gpu --skip-ceilings --samples=1 --benchmark_filter="^reduce_bw/$shape/fusekit/gpu_throughput" > $f 2>&1
  echo "== ncu $name vpt $vpt rc $? t=$SECONDS"; grep -E "^\s+(Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Executed Ipc A|Warp Cycles Per Issued|Block Size|Grid Size|Cluster Size)" $f | head -10
done
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
