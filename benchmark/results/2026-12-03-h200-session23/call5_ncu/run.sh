#!/usr/bin/env bash
# Session 23 call 5: ncu of the long rows on 0efaf7d's code (barrier-free cluster exchange), for
# the next step: sliced and register clusters at 8 x 262144, sliced at 128 x 65536.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$OUT/call5; mkdir -p $o; chmod +x $d/bench_new
for k in "sliced ln bf16 8:automatic:layer_norm/bf16/8x262144" "reg ln bf16 8:registers:layer_norm/bf16/8x262144" "sliced softmax bf16 8:automatic:softmax/bf16/8x262144" "sliced softmax bf16 128:automatic:softmax/bf16/128x65536"; do
  IFS=: read -r name kernel shape <<< "$k"; f=$o/ncu_${name// /_}.txt
  FUSEKIT_ROW_KERNEL=$kernel timeout 90 ncu --set full --clock-control none -k regex:'row_kernel|row_cluster' --launch-skip 4 --launch-count 1 \
    $d/bench_new --require-gpu --skip-ceilings --samples=1 --benchmark_filter="^reduce_bw/$shape/fusekit/gpu_throughput" > $f 2>&1
  echo "== $name rc $?"; grep -E "^\s+(Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Executed Ipc A|Memory Throughput|Warp Cycles Per Issued|Dynamic Shared|Block Size|Grid Size|Cluster Size)" $f | head -14
done
cd $OUT && tar cJf call5.tar.xz call5
