#!/usr/bin/env bash
# Session 26 call 1: the committed build (5ad3751) on the H200: GEMM suite, racecheck on the swapped-tile test,
# 925-token medians (fusekit, bare, cuBLASLt; fc1 also with 160-token tiles forced), the layer report.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/fusekit*; export LD_LIBRARY_PATH=$d
o=$OUT/call1; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/device.txt 2>&1
timeout 90 $d/fusekit_test_gemm > $o/test_gemm.log 2>&1; echo "suite rc=$? $(grep -E 'test cases|assertions' $o/test_gemm.log | tr '\n' ' ') t=$SECONDS"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard $d/fusekit_test_gemm -tc='linear: swapped tiles*' > $o/racecheck.log 2>&1; echo "racecheck rc=$? t=$SECONDS"; grep -E "RACECHECK SUMMARY|test cases" $o/racecheck.log | tail -3; echo "hazards: $(grep -c 'hazard detected' $o/racecheck.log)"
b() { FUSEKIT_GEMM_TOKENS=925 timeout 60 env $2 $d/fusekit_bench_gemm --require-gpu --skip-ceilings --benchmark_filter="$3" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
all="gemm/.*/bf16/.*/(fusekit|fusekit_bare|cublaslt)/gpu_throughput"
fc1="gemm/fc1/bf16/.*/(fusekit|fusekit_bare)/gpu_throughput"
b all1 X=1 "$all"; b s160a FUSEKIT_SWAPPED_TILES=160 "$fc1"; b all2 X=1 "$all"; b s160b FUSEKIT_SWAPPED_TILES=160 "$fc1"
O=$o python3 $d/ab.py all1 all2 s160a s160b | tee $o/ab.txt
cd $d && OUT=$o/lr timeout 300 bash $d/h200_layer_report.sh $d > $o/lr.log 2>&1; echo "layer report rc=$? t=$SECONDS"
grep -E "slowdown|qkv_proj|out_proj|fc1|fc2|FAILED|status" $o/lr.log | tail -24
cd $OUT && tar cJf call1.tar.xz call1 && rm -rf call1
