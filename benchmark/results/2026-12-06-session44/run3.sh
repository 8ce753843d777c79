#!/usr/bin/env bash
# Forty-fourth session, calls 3-4. new/: the dispatch's plan (reduce::plan_rows: the kernel a call
# runs, decided on the host, then launched; the same kernels, 89 of them) and the GPU cases that
# assert the plan of the shapes meant to reach the sharing, one-phase and helped kernels.
#   suite (carry/c2s): new/'s whole GPU suite, memcheck on RMSNorm's paths-agree case;
#   plan (carry/c2s): the cases that assert the plan, timed;
#   ab (carry/c2): base/ (main 88e71bd) against new/ on the 37-row seed shapes in all four timing
#   modes (the host's share of a call) and the 8M-element rows, two runs of 9 alternating.
#   OUT=... bash benchmark/results/2026-12-06-session44/run3.sh carry/c2s suite|plan | carry/c2 ab
set -u
source tools/ab_common.sh "${1:-carry/c2}"
step=${2:-ab}
o=$OUT/call3_$step; mkdir -p $o; gpu_info $o
case $step in
  plan)  # the norms' cases that assert the plan, timed
    suite test_plan 200 $d/new/fusekit_test_reduce_gpu --duration=true \
      "-tc=*norm: aligned and general*,*norm: phased and general*,*norm: rows with and without write helpers*" ;;
  suite)
    suite test_new 450 $d/new/fusekit_test_reduce_gpu
    sanitize memcheck memcheck_rms_paths $d/new/fusekit_test_reduce_gpu "rms_norm: aligned and general*" 90 ;;
  ab)
    alternate rows 90 '^(reduce/(softmax|rms_norm|layer_norm)/.*/37x1537/fusekit/.*|reduce_bw/(softmax|rms_norm|layer_norm)/bf16/.*/fusekit/gpu_throughput)' 9 2 base new
    cat $o/table_rows.txt ;;
esac
cd $OUT && tar cJf call3_$step.tar.xz call3_$step && rm -rf call3_$step
