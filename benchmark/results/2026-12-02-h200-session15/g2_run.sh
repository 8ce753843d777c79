#!/usr/bin/env bash
# Session 15 call g2: swapped tiles (tokens as the wgmma's N, 160 x 128 tiles). GPU suite,
# sanitizers on the swapped cases, qkv_proj/fc1 at 925 and 4096 tokens with the swapped tiles
# never / automatic / always alternating, and a token sweep of the bare GEMMs on both tiles.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/sw/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/sw/fusekit_*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-g2}; mkdir -p $o; SECONDS=0
timeout 150 $d/sw/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED|rel_err" $o/test_gemm.log | grep -E "ERROR|FAILED|925" | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $d/sw/fusekit_test_gemm -tc='*swapped*,linear_glu: both*,linear_residual: plain*,QkvHeads*,linear_qkv: tiny*,linear: identity*' > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log) t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $d/sw/fusekit_test_gemm -tc='linear_glu: both*,linear_residual: plain*' > $o/sanitize_racecheck.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $o/sanitize_racecheck.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck.log) t=$SECONDS"
run() { FUSEKIT_SWAPPED_TILES=$2 timeout 60 $d/sw/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/tokens=(925|4096)/fusekit.*/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
for i in 1 2; do run never$i never; run auto$i automatic; run always$i always; done
O=$o python3 $d/ab.py never1 auto1 always1 never2 auto2 always2 | tee $o/ab.txt
sweep() { FUSEKIT_GEMM_TOKENS=150,256,512,768,925,1024,1536,2048 FUSEKIT_SWAPPED_TILES=$2 timeout 80 $d/sw/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|fc1)/bf16/.*/fusekit_bare/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
sweep sweep_never never; sweep sweep_always always
O=$o python3 $d/ab.py sweep_never sweep_always | tee $o/sweep.txt
cd $OUT && tar czf ${CALL:-g2}.tgz ${CALL:-g2}
