#!/usr/bin/env bash
# Session 26 call 9: synccheck on the row kernels' sanitize set (tools/h200_reduce.sh's cases), HEAD's build.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/red/fusekit_test_reduce_gpu.xz; chmod +x $d/red/fusekit_test_reduce_gpu
o=$OUT/call9; mkdir -p $o; SECONDS=0
timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 $d/red/fusekit_test_reduce_gpu \
  -tc="rms_norm: strides*,*rejects*,rms_norm: fused*,softmax: all*,*same bits*" > $o/synccheck_reduce.log 2>&1
echo "synccheck reduce set rc=$? t=$SECONDS"; grep -E "ERROR SUMMARY|test cases|assertions" $o/synccheck_reduce.log
cd $OUT && tar cJf call9.tar.xz call9 && rm -rf call9
