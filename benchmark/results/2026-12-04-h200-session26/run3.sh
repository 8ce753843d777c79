#!/usr/bin/env bash
# Session 26 call 3: racecheck's staging reports summarized by PC pair (analysis mode) and the SASS at those PCs;
# a timeline of the committed 160-token swapped kernel (clock64/globaltimer stamps, raw dumps).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fusekit* $d/timeline; export LD_LIBRARY_PATH=$d
o=$OUT/call3; mkdir -p $o/tl; SECONDS=0
$d/timeline $o/tl > $o/timeline.txt 2>&1; echo "timeline rc=$? t=$SECONDS"; cat $o/timeline.txt
K='_ZN7fusekit4gemm24gemm_kernel_sm90_swappedINS0_19SwappedMainLoopSm90I13__nv_bfloat16Li160ELi5ELi80EEENS0_8EpilogueIJNS0_4BiasIS3_EENS0_8ActivateENS0_9StoreRowsIS3_EEEEEEEv14CUtensorMap_stSC_NS0_10GemmExtentENS0_9TileOrderENS0_9KSegmentsENT0_6ParamsE'
cuobjdump -sass -fun "$K" $d/fusekit_test_gemm > $o/test_kernel.sass 2>&1; echo "sass rc=$? $(wc -l < $o/test_kernel.sass)"
timeout 120 compute-sanitizer --tool racecheck --racecheck-report analysis $d/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/racecheck_analysis.log 2>&1; echo "racecheck rc=$? t=$SECONDS"
grep -E "SUMMARY|test cases" $o/racecheck_analysis.log; grep -cE "Race reported" $o/racecheck_analysis.log
grep -E "Race reported|access at|hazards\]" $o/racecheck_analysis.log | sed 's/void fusekit.*)+/+/' | head -40
cd $OUT && tar cJf call3.tar.xz call3 && rm -rf call3
