#!/usr/bin/env bash
# Session 16 call g1: swapped 160-token tiles for long, narrow weights (K segments folded in the
# registers). GPU suite, memcheck and racecheck on the K-segment tests, then out_proj and fc2
# bare and fused over M with the tiles forced (narrow / wide / swapped) and automatic.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/fin/*.xz "$d"/fin/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/fin/fusekit_* "$d"/fin/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g1}; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
timeout 170 $d/fin/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='linear: K segments*,linear: long K*,linear_residual: plain*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fin/fusekit_test_gemm -tc='linear: long K*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep "Race reported" $o/sanitize_racecheck.log | head -3
run() { FUSEKIT_GEMM_TOKENS=$3 FUSEKIT_SEGMENT_TILES=$2 timeout 60 $d/fin/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
T=256,512,768,925,1024,1536,2048,4096
run narrow narrow $T; run wide wide $T; run swapped swapped $T; run auto automatic $T
O=$o python3 $d/ab.py narrow wide swapped auto | tee $o/sweep.txt
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-g1}.tgz ${CALL:-g1}
