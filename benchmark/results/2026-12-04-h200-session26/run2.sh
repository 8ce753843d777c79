#!/usr/bin/env bash
# Session 26 call 2: where racecheck's staging hazards sit (SASS), racecheck on the build that confirms each poll
# with a try_wait, SM clock and power under fusekit's and cuBLASLt's 925-token out_proj/fc2, ncu source counters.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz "$d"/v2/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fusekit* $d/v2/fusekit*; export LD_LIBRARY_PATH=$d
o=$OUT/call2; mkdir -p $o; SECONDS=0
K='_ZN7fusekit4gemm24gemm_kernel_sm90_swappedINS0_19SwappedMainLoopSm90I13__nv_bfloat16Li160ELi5ELi80EEENS0_8EpilogueIJNS0_4BiasIS3_EENS0_8ActivateENS0_9StoreRowsIS3_EEEEEEEv14CUtensorMap_stSB_NS0_10GemmExtentENS0_9TileOrderENS0_9KSegmentsENT0_6ParamsE'
cuobjdump -sass -fun "$K" $d/fusekit_test_gemm > $o/old_kernel.sass 2>&1; echo "sass old rc=$? $(wc -l < $o/old_kernel.sass)"
cuobjdump -sass -fun "$K" $d/v2/fusekit_test_gemm > $o/new_kernel.sass 2>&1; echo "sass new rc=$? $(wc -l < $o/new_kernel.sass)"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard $d/v2/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/racecheck_new.log 2>&1; echo "racecheck new rc=$? t=$SECONDS"; grep -E "RACECHECK SUMMARY|test cases" $o/racecheck_new.log | tail -2
grep -E "Read Thread|Write Thread" $o/racecheck_new.log | sed 's/(CUtensor.*+/+/' | sort | uniq -c | head -20
smi() { nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 50 > $o/smi_$1.csv & echo $!; }
for impl in fusekit_bare cublaslt fusekit_bare cublaslt; do for lin in out_proj fc2; do
  p=$(smi ${lin}_${impl}_$SECONDS)
  FUSEKIT_GEMM_TOKENS=925 timeout 40 $d/v2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_repetitions=25 \
    --benchmark_filter="gemm/$lin/bf16/.*/$impl/gpu_throughput" > $o/clk_${lin}_${impl}_$SECONDS.txt 2>&1
  kill $p; echo "clk $lin $impl t=$SECONDS"
done; done
FUSEKIT_GEMM_TOKENS=925 timeout 150 ncu --graph-profiling node --clock-control none -k 'regex:gemm_kernel' --launch-skip 4 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $o/outproj_bare -f \
  $d/v2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/out_proj/bf16/tokens=925/fusekit_bare/gpu_throughput" > $o/ncu_run.txt 2>&1
echo "ncu rc=$? t=$SECONDS"
ncu -i $o/outproj_bare.ncu-rep --page source --print-source sass --csv > $o/outproj_src.csv 2> $o/outproj_src.err; echo "src rc=$? $(wc -l < $o/outproj_src.csv)"
ncu -i $o/outproj_bare.ncu-rep --page details > $o/outproj_details.txt 2>&1
rm -f $o/outproj_bare.ncu-rep
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
