#!/usr/bin/env bash
# Session 23 call 4: rows split over a cluster exchange their partials by st.async pushes into
# each CTA's shared memory (one mbarrier a reduction), not a cluster barrier a reduction plus one
# at exit. GPU reduce suite, memcheck and racecheck on the cluster rows; then the long rows
# (staged slices by default, and the register cluster kernel forced) and the H3 norms (no
# cluster: a control), base (3c4cfd5's code) against new, alternating twice.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
o=$OUT/call4; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$o/gpu.txt" 2>&1
xz -dc "$d/test_new.xz" > "$d/test_new" && chmod +x "$d/test_new" "$d"/bench_*
F='(reduce_bw/.*/(128x65536|8x262144|32x262144)/|h3_norm.*)fusekit/gpu_throughput'
for r in 1 2; do
  for v in base new; do
    timeout 60 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$F" > "$o/bench_${v}_$r.txt" 2>&1; echo "bench $v $r rc $? t=$SECONDS"
    FUSEKIT_ROW_KERNEL=registers timeout 60 "$d/bench_$v" --require-gpu --skip-ceilings --samples=9 --benchmark_filter="$F" > "$o/bench_${v}R_$r.txt" 2>&1; echo "bench ${v}R $r rc $? t=$SECONDS"
  done
done
python3 "$d/table.py" "$o" base,new > "$o/table.txt"; cat "$o/table.txt"
python3 "$d/table.py" "$o" baseR,newR > "$o/tableR.txt"; cat "$o/tableR.txt"
timeout 200 "$d/test_new" > "$o/test_reduce_gpu.log" 2>&1; echo "tests rc $? t=$SECONDS"; tail -n 3 "$o/test_reduce_gpu.log"; grep -E "ERROR|FAILED" "$o/test_reduce_gpu.log" | head
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/test_new" \
  -tc="*staged and register kernels*,*in-place calls queued*" > "$o/memcheck.log" 2>&1; echo "memcheck rc $? t=$SECONDS"
grep -E "ERROR SUMMARY|test cases" "$o/memcheck.log" | tail -n 2
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 "$d/test_new" \
  -tc="softmax: staged and register kernels*" > "$o/racecheck.log" 2>&1; echo "racecheck rc $? t=$SECONDS"
grep -E "RACECHECK SUMMARY|test cases" "$o/racecheck.log" | tail -n 2
cd $OUT && tar cJf call4.tar.xz call4
