#!/usr/bin/env bash
# Session 14 call f2. main/ = main 822af9f (the merged epilogue diet, with the review's test
# cases); pdl/ = branch wip/gemm-pdl (programmatic dependent launch for the Hopper GEMMs:
# FUSEKIT_GRID_OVERLAP=none|prologue|weights). GPU suites of both, sanitizers on the PDL test,
# the whole suite in the three modes alternating twice (cuBLASLt in the first run only), ncu of the 70-token out_proj/fc2 kernels.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/main/*.xz "$d"/pdl/*.xz "$d"/pdl/lr/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x "$d"/main/fusekit_* "$d"/pdl/fusekit_* "$d"/pdl/lr/fusekit-*; export LD_LIBRARY_PATH=$d
o=$OUT/${CALL:-f2}; mkdir -p $o; SECONDS=0
timeout 100 $d/main/fusekit_test_gemm > $o/test_gemm_main.log 2>&1; echo "test main rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_main.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_main.log | head -10
timeout 100 $d/pdl/fusekit_test_gemm > $o/test_gemm_pdl.log 2>&1; echo "test pdl rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_pdl.log | tr '\n' ' ') t=$SECONDS"
grep -E "ERROR|FAILED" $o/test_gemm_pdl.log | head -10
timeout 70 compute-sanitizer --tool memcheck --error-exitcode 9 $d/pdl/fusekit_test_gemm -tc='*programmatic*,out_proj: every*,linear: split tiles in a CUDA graph*' > $o/sanitize_memcheck_pdl.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck_pdl.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck_pdl.log) t=$SECONDS"
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $d/pdl/fusekit_test_gemm -tc='*programmatic*' > $o/sanitize_racecheck_pdl.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $o/sanitize_racecheck_pdl.log | tail -1) $(grep 'test cases' $o/sanitize_racecheck_pdl.log) t=$SECONDS"
run() { FUSEKIT_GRID_OVERLAP=$2 timeout 100 $d/pdl/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="${3:-/(fusekit|fusekit_bare)/gpu_throughput}" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log; echo "$1 rc=$? t=$SECONDS"; }
run none1 none gpu_throughput; run prologue1 prologue; run weights1 weights; run none2 none; run prologue2 prologue; run weights2 weights
O=$o python3 $d/ab.py none1 prologue1 weights1 none2 prologue2 weights2 | tee $o/ab.txt
for L in out_proj fc2; do
  FUSEKIT_GRID_OVERLAP=none FUSEKIT_GEMM_TOKENS=70 timeout 60 ncu -k regex:gemm_kernel_sm90 --launch-count 3 --metrics launch__grid_size,gpu__time_duration.sum,dram__bytes_read.sum.per_second \
   $d/pdl/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/$L/bf16/tokens=70/fusekit_bare/gpu_throughput" --samples=2 > $o/ncu_${L}_70.txt 2>&1
  echo "ncu $L rc=$? t=$SECONDS"; grep -E "launch__grid_size|gpu__time_duration|dram__bytes" $o/ncu_${L}_70.txt | head -6
done
echo "t=$SECONDS"
cd $OUT && tar czf ${CALL:-f2}.tgz ${CALL:-f2}
