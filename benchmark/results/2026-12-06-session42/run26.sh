#!/usr/bin/env bash
# Forty-second session, call 26 (about 5 minutes): fold/'s whole GPU suite (branch wip/fold-four:
# the pair + 128-bit store of call 25, plus the cross-warp fold in tiers, which must give the same
# bits), then ncu on the long rows of one wave (bf16 8 x 262144 softmax, RMSNorm, LayerNorm: where a
# 9-13 us call of 8 MB goes) with fold/'s bench.
#   OUT=... bash benchmark/results/2026-12-06-session42/run26.sh carry/c26
set -u
source tools/ab_common.sh "${1:-carry/c26}"
o=$OUT/call26; mkdir -p $o; gpu_info $o
suite test_fold 330 $d/fold/fusekit_test_reduce_gpu
for op in softmax rms_norm layer_norm; do
  profile long_$op 60 $d/fold/fusekit_bench_reduce "^reduce_bw/$op/bf16/8x262144/fusekit/gpu_throughput" \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg
done
cd $OUT && tar cJf call26.tar.xz call26 && rm -rf call26
