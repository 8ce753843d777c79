#!/usr/bin/env bash
# Session 27 call 5: synccheck's "Missing wait" in row_cluster_kernel<LayerNorm, f32> (call 4): on HEAD's build, which cases, and the SASS at the site.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/head/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/head/*
o=$OUT/call5; mkdir -p $o; SECONDS=0
T=$d/head/fusekit_test_reduce_gpu
sc() { timeout 150 compute-sanitizer --tool synccheck $T -tc="$2" > $o/synccheck_$1.log 2>&1; echo "synccheck $1 rc=$? t=$SECONDS: $(grep -E 'ERROR SUMMARY' $o/synccheck_$1.log) $(grep -E 'test cases' $o/synccheck_$1.log)"; grep -o "at void [^(]*([^)]*)+0x[0-9a-f]*" $o/synccheck_$1.log | sort | uniq -c | head -5; }
sc ln_weight "layer_norm: weight*"
sc call9set "rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*"
sc ln_sizes "layer_norm: N from*"
sc rms_sizes "rms_norm: N from*"
cuobjdump -sass -fun '_ZN7fusekit6reduce18row_cluster_kernelINS0_15LayerNormPolicyEffEEvNS0_9RowParamsEi' $T > $o/cluster_ln_f32.sass 2>&1; echo "sass rc=$? $(wc -l < $o/cluster_ln_f32.sass)"
grep -n -B12 -A4 "/\*0160\*/" $o/cluster_ln_f32.sass | head -40
timeout 300 $T > $o/suite.log 2>&1; echo "suite rc=$? t=$SECONDS $(grep -E 'test cases|assertions' $o/suite.log | tr '\n' ' ')"
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
