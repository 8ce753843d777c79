#!/usr/bin/env bash
# Session 23 call 2: thin tiles in clusters with one token box a CTA (c4: 96 tokens, 24-row boxes;
# c2: 80 tokens, 40-row boxes), remote arrives without the cluster-scope fence. GPU suite and
# memcheck on the c4 build, then out_proj / fc2 at 37 and 70 tokens, narrow / thin c4 / thin c2,
# alternating twice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
[ -f $d/b4/fusekit_test_gemm ] || xz -d -k $d/b4/fusekit_test_gemm.xz
chmod +x $d/b4/* $d/b2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
$d/arrive_cost | tee $o/arrive_cost.txt
$d/cluster_sync_cost | tee $o/cluster_sync_cost.txt; cuobjdump -sass $d/cluster_sync_cost.cubin > $o/cluster_sync_cost.sass 2>&1
run() { FUSEKIT_GEMM_TOKENS=37,70 FUSEKIT_SEGMENT_TILES=$3 timeout 60 $d/$2 --require-gpu --skip-ceilings --benchmark_filter="gemm/(out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run narrow$i b4/fusekit_bench_gemm narrow; run thin4_$i b4/fusekit_bench_gemm thin; run thin2_$i b2/fusekit_bench_gemm thin; done
O=$o python3 $d/ab.py narrow1 thin4_1 thin2_1 narrow2 thin4_2 thin2_2 | tee $o/ab.txt
timeout 200 $d/b4/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/b4/fusekit_test_gemm -tc='linear: K segments*,linear: launched over*,out_proj: every*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
grep -m3 "Invalid\|Error" $o/sanitize_memcheck.log
cd $OUT && tar cJf call2.tar.xz call2
