#!/usr/bin/env bash
# Session 14 call f5: the review's fixes to the overlap (the few-row K-segment kernel lets the
# next grid start only after its own wait; the other kernels never early; the chain test after
# an early-triggering kernel and from a CUDA graph). GPU suite, sanitizers on the chain test,
# out_proj/fc2 at 70 tokens in the three modes alternating twice, qkv_proj/fc1 at 70 once.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fix/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fix/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-f5}; mkdir -p $o; SECONDS=0
timeout 80 $d/fix/fusekit_test_gemm > $o/test_gemm_fix.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_fix.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_fix.log | head -10
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fix/fusekit_test_gemm -tc='*programmatic*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fix/fusekit_test_gemm -tc='*programmatic*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { FUSEKIT_GRID_OVERLAP=$2 timeout 30 $d/fix/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/tokens=70/.*/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run none$i none; run prologue$i prologue; run weights$i weights; done
O=$o python3 $d/ab.py none1 prologue1 weights1 none2 prologue2 weights2 | tee $o/ab.txt
timeout 30 $d/fix/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/tokens=70/.*/gpu_throughput" --benchmark_out=$o/bench_plain70.json --benchmark_out_format=json > $o/bench_plain70.txt 2> $o/bench_plain70.log; echo "plain70 rc=$? t=$SECONDS"
O=$o python3 $d/ab.py plain70
cd $OUT && tar czf ${CALL:-f5}.tgz ${CALL:-f5}
