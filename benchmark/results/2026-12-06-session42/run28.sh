#!/usr/bin/env bash
# Forty-second session, call 28 (about 2 minutes): why the shared parameters gained LayerNorm 1.02x
# and RMSNorm 1.11x (call 27). ncu on one launch each of bf16 5462 x 1537 with FUSEKIT_PHASED_SHARE
# off and on (main 0c1e579's binaries, carry/c27/new): LayerNorm's SASS source counters (read them
# with tools/ncu_walk.py FILE 21848 ... the grid differs: off 2731 CTAs, on 2736, of 8 warps), and
# the throughput, occupancy and warp-state sections for both norms.
#   OUT=... bash benchmark/results/2026-12-06-session42/run28.sh carry/c27
set -u
source tools/ab_common.sh "${1:-carry/c27}"
o=$OUT/call28; mkdir -p $o; gpu_info $o
for share in off on; do
  export FUSEKIT_PHASED_SHARE=$share
  profile sass_counts_layer_norm_$share 60 $d/new/fusekit_bench_reduce '^reduce_bw/layer_norm/bf16/5462x1537/fusekit/gpu_throughput' \
    --section SourceCounters --page source --print-source sass --csv
  xz -f $o/sass_counts_layer_norm_$share.txt
  for op in layer_norm rms_norm; do
    profile sections_${op}_$share 60 $d/new/fusekit_bench_reduce "^reduce_bw/$op/bf16/5462x1537/fusekit/gpu_throughput" \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  done
done
cd $OUT && tar cJf call28.tar.xz call28 && rm -rf call28
