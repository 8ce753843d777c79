#!/usr/bin/env bash
# Session 27 call 8: the cluster exchange arms only the policy's reductions (Policy::kReductions): A/B against HEAD on the long rows,
# synccheck on the cases that reported a missing wait on HEAD (call 5) and the sanitize set, the GPU reduce suite.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/red/*.xz "$d"/fix2/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/red/* $d/fix2/*; export LD_LIBRARY_PATH=$d
o=$OUT/call8; mkdir -p $o; SECONDS=0
T=$d/fix2/fusekit_test_reduce_gpu
F='reduce_bw/(softmax|rms_norm|layer_norm)/(f32|bf16)/(128x65536|8x262144|32x262144)/fusekit/gpu_throughput'
run() { timeout 100 $d/$2/fusekit_bench_reduce --require-gpu --skip-ceilings --benchmark_filter="$F" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out=$o/$1.json --benchmark_out_format=json > $o/$1.txt 2>&1; echo "$1 rc=$? t=$SECONDS"; }
run base1 red; run new1 fix2; run base2 red; run new2 fix2
O=$o python3 $d/ab_reduce.py base1 new1 base2 new2 | tee $o/ab.txt
san() { timeout 100 compute-sanitizer --tool synccheck $T -tc="$2" > $o/synccheck_$1.log 2>&1; echo "synccheck $1 rc=$? t=$SECONDS: $(grep -E 'ERROR SUMMARY' $o/synccheck_$1.log) $(grep -E 'test cases' $o/synccheck_$1.log)"; grep -E "values:|logged: case" $o/synccheck_$1.log | head -2; }
san rms_sizes "rms_norm: N from*"
san ln_weight "layer_norm: weight*"
san set "rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*"
timeout 250 $T > $o/suite.log 2>&1; echo "suite rc=$? t=$SECONDS $(grep -E 'test cases|assertions' $o/suite.log | tr '\n' ' ')"
cd $OUT && tar cJf call8.tar.xz call8 && rm -rf call8
