#!/usr/bin/env bash
# Session 27 call 6: each cluster reduction arms its own barrier (no slot left armed at exit): synccheck on the cases that reported a
# missing wait (call 5) and the sanitize set, racecheck, the GPU reduce suite, A/B against HEAD (bc3011b) on the long rows.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/red/*.xz "$d"/fix/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/red/* $d/fix/*; export LD_LIBRARY_PATH=$d
o=$OUT/call6; mkdir -p $o; SECONDS=0
T=$d/fix/fusekit_test_reduce_gpu
san() { timeout 200 compute-sanitizer --tool $1 $T -tc="$3" > $o/$1_$2.log 2>&1; echo "$1 $2 rc=$? t=$SECONDS: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/$1_$2.log) $(grep -E 'test cases' $o/$1_$2.log)"; grep -o "at void [^(]*([^)]*)+0x[0-9a-f]*" $o/$1_$2.log | sort | uniq -c | head -3; }
san synccheck sizes "layer_norm: weight*,layer_norm: N from*,rms_norm: N from*,softmax: N from*"
san synccheck set "rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*"
san racecheck sizes "layer_norm: N from*,softmax: staged*"
san memcheck sizes "layer_norm: N from*,rms_norm: N from*"
F='reduce/(softmax|rms_norm|layer_norm)/(f32|bf16)/(128x65536|8x262144|32x262144)/fusekit/gpu_throughput'
run() { timeout 100 $d/$2/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="$F" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out=$o/$1.json --benchmark_out_format=json > $o/$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 red; run new1 fix; run base2 red; run new2 fix
O=$o python3 $d/ab_reduce.py base1 new1 base2 new2 | tee $o/ab.txt
timeout 280 $T > $o/suite.log 2>&1; echo "suite rc=$? t=$SECONDS $(grep -E 'test cases|assertions' $o/suite.log | tr '\n' ' ')"
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
