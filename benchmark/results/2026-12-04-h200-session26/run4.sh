#!/usr/bin/env bash
# Session 26 call 4: the new swapped kernel (chunks staged in the next tile's first slices, last tile on 12 warps
# under __syncthreads, 32-bit tile coordinates): GEMM suite, racecheck (analysis) and memcheck on the swapped
# tiles, same-call A/B against the committed build at 925 tokens, the new timeline.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/new/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/base/* $d/new/* $d/timeline_new; export LD_LIBRARY_PATH=$d
o=$OUT/call4; mkdir -p $o/tl; SECONDS=0
timeout 90 $d/new/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report analysis $d/new/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"
grep -E "SUMMARY|test cases" $o/racecheck.log; grep -E "Race reported|access at" $o/racecheck.log | sed 's/void fusekit.*)+/+/' | head -12
timeout 100 compute-sanitizer --tool memcheck $d/new/fusekit_test_gemm -tc='linear: swapped tiles*,out_proj: every*' > $o/memcheck.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases" $o/memcheck.log
run() { FUSEKIT_GEMM_TOKENS=925 timeout 45 $d/$2/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
f="gemm/(qkv_proj|out_proj|fc2)/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput"
run base1 base "$f"; run new1 new "$f"; run base2 base "$f"; run new2 new "$f"
run cub new "gemm/.*/bf16/.*/cublaslt/gpu_throughput"
O=$o python3 $d/ab.py base1 new1 base2 new2 cub | tee $o/ab.txt
$d/timeline_new $o/tl > $o/timeline.txt 2>&1; echo "timeline rc=$? t=$SECONDS"; cat $o/timeline.txt
cd $OUT && tar cJf call4.tar.xz call4 && rm -rf call4
