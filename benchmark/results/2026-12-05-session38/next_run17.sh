#!/usr/bin/env bash
# Prepared in the thirty-eighth session (three device starts refused; about 6 minutes): branch
# wip/sliced-params, the sliced rows' weight and bias staged beside the row in calls of one wave
# (sp/: automatic = staged where rows x cluster <= SMs) against base/ (main 3275cc5's bench: the
# FUSEKIT_ROW_PARAMS knob); then sp/ with FUSEKIT_SLICE_PARAMS=never and =always (staged on every
# sliced call, several waves too); sp/'s norm GPU cases (the new same-bits case among them); memcheck
# on the new case.
# Carry: carry/c17 (base/, sp/ fusekit_bench_reduce.xz, sp/fusekit_test_reduce_gpu.xz, libbenchmark).
#   OUT=... bash benchmark/results/2026-12-05-session38/next_run17.sh carry/c17
set -u
source tools/ab_common.sh "${1:-carry/c17}"
o=$OUT/call17; mkdir -p $o; gpu_info $o
ALL='^reduce_bw/[a-z_]+/[a-z0-9]+/[0-9]+x(16384|65536|262144)/fusekit/gpu_throughput'
alternate rows 60 "$ALL" 9 2 base sp
cat $o/table_rows.txt
NORMS='^reduce_bw/(rms_norm|layer_norm)/[a-z0-9]+/[0-9]+x(65536|262144)/fusekit/gpu_throughput'
sweep modes 60 $d/sp/fusekit_bench_reduce "$NORMS" 9 2 FUSEKIT_SLICE_PARAMS never always
cat $o/table_modes.txt
suite test_norms_sp 250 $d/sp/fusekit_test_reduce_gpu "-tc=rms_norm*,layer_norm*"
sanitize memcheck memcheck_sp $d/sp/fusekit_test_reduce_gpu "*parameters staged*" 150
cd $OUT && tar cJf call17.tar.xz call17 && rm -rf call17
