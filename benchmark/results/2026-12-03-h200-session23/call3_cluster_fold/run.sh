#!/usr/bin/env bash
# Session 23 call 3: the few-row K-segment kernel's fold in a cluster of a tile's CTAs
# (cluster_fold.hpp). out_proj / fc2 at 37 and 70 tokens: automatic (cluster where the clusters
# fit) / forced workspace / forced cluster, alternating twice; then the GPU suite, memcheck and
# racecheck on the K-segment and overlap-chain tests.
set -u
d=$(cd "$(dirname "$0")" && pwd)
[ -f $d/fusekit_test_gemm ] || xz -d -k $d/fusekit_test_gemm.xz
chmod +x $d/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_FEW_ROW_FOLD=$2 timeout 60 $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run auto$i automatic; run workspace$i workspace; run cluster$i cluster; done
O=$o python3 $d/ab.py auto1 workspace1 cluster1 auto2 workspace2 cluster2 | tee $o/ab.txt
timeout 200 $d/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: K segments*,linear: launched over*,out_proj: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
grep -m3 "Invalid\|Error" $o/sanitize_memcheck.log
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: launched over*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
grep -m3 "Race reported\|Error" $o/sanitize_racecheck.log
cd $OUT && tar cJf call3.tar.xz call3
