#!/usr/bin/env bash
# Session 26 call 5: which change slowed call 4's build: A/B of base (5ad3751), new (call 4), J (last tile on 12
# warps + 32-bit coordinates, chunk 0 handed at once as before), H (chunk 0 staged in the next tile's hook only);
# synccheck and the SASS at racecheck's PCs for the new build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/new/* $d/J/* $d/H/*; export LD_LIBRARY_PATH=$d
o=$OUT/call5; mkdir -p $o; SECONDS=0
run() { FUSEKIT_GEMM_TOKENS=925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="gemm/(qkv_proj|out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 base; run new1 new; run J1 J; run H1 H; run base2 base; run new2 new; run J2 J; run H2 H
O=$o python3 $d/ab.py base1 base2 new1 new2 J1 J2 H1 H2 | tee $o/ab.txt
K='_ZN7fusekit4gemm24gemm_kernel_sm90_swappedINS0_19SwappedMainLoopSm90I13__nv_bfloat16Li160ELi5ELi80EEENS0_8EpilogueIJNS0_4BiasIS3_EENS0_8ActivateENS0_9StoreRowsIS3_EEEEEEEv14CUtensorMap_stSC_NS0_10GemmExtentENS0_9TileOrderENS0_9KSegmentsENT0_6ParamsE'
cuobjdump -sass -fun "$K" $d/new/fusekit_test_gemm > $o/new_test_kernel.sass 2>&1; echo "sass rc=$? $(wc -l < $o/new_test_kernel.sass)"
timeout 100 compute-sanitizer --tool synccheck $d/new/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/synccheck.log 2>&1; echo "synccheck rc=$? t=$SECONDS"; grep -E "SUMMARY|test cases" $o/synccheck.log; head -30 $o/synccheck.log | grep -v "Host Frame" | head -12
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
