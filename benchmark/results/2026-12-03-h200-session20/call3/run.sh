#!/usr/bin/env bash
# Twentieth session, call 3: the LayerNorm tests (with the new in-place residual cases) on HEAD's
# code, memcheck on them; then why bf16 LayerNorm runs 1.4x behind the probe at the same layout
# (64 threads x 2 vectors, 4 rows a CTA, parameters held): the probe's timings, ncu of the
# library's kernel and the probe's, and the SASS of both.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
timeout 100 "$d/T/fusekit_test_reduce_gpu" -tc="layer_norm*" > "$OUT/test_layer_norm.log" 2>&1; echo "tests rc $?"; tail -n 3 "$OUT/test_layer_norm.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/T/fusekit_test_reduce_gpu" \
  -tc="layer_norm: weight*" > "$OUT/memcheck.log" 2>&1; echo "memcheck rc $?"
grep -E "ERROR SUMMARY|test cases" "$OUT/memcheck.log" | tail -n 2
P="$d/row_layout_probe"
timeout 60 "$P" "layer_norm 8192x1024" > "$OUT/probe_ln.txt" 2>&1; echo "probe rc $?"; cat "$OUT/probe_ln.txt" | head -12
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
for k in 'row_kernelINS0_15LayerNormPolicy' 'probe_kernelILi64ELi2ELi4ELi1ELi1E' 'row_kernelINS0_13RmsNormPolicy' 'probe_kernelILi64ELi2ELi4ELi0ELi1E'; do
  f=${k:0:40}
  case $k in *Rms*|*Li0ELi1E) c="rms_norm 8192x1024";; *) c="layer_norm 8192x1024";; esac
  timeout 90 ncu --clock-control none --kernel-name-base mangled --kernel-name "regex:$k" -c 1 $S "$P" "$c" > "$OUT/ncu_$f.txt" 2>&1; echo "ncu $k rc $?"
done
for k in $(cuobjdump -symbols "$P" 2>/dev/null | grep -o '_ZN7fusekit6reduce10row_kernelINS0_1[35][A-Za-z]*PolicyE13__nv_bfloat16S3_LNS0_8RowShapeE1ELb1EEEvNS0_9RowParamsEi\|_Z12probe_kernelILi64ELi2ELi4ELi[01]ELi1EEv4Args' | sort -u); do
  cuobjdump -sass -fun "$k" "$P" > "$OUT/sass_${k:0:60}.txt" 2>&1
done
ls "$OUT"
