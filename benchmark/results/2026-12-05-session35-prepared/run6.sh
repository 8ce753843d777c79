#!/usr/bin/env bash
# Prepared in the thirty-fifth session: the GPU tests of wip/row-barriers (bar/) and
# wip/row-input-reads (input/). (run7.sh: racecheck.)
# Carry: carry/s35/{common.sh,run6.sh}, carry/s35/{bar,input}/fusekit_test_reduce_gpu.xz,
# carry/s33/libbenchmark.so.1debian.   OUT=... bash carry/s35/run6.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call6; mkdir -p $o; gpu_info $o
for b in bar input; do
  timeout 260 $d/$b/fusekit_test_reduce_gpu > $o/test_reduce_$b.log 2>&1
  echo "$b tests rc=$? $(grep 'test cases' $o/test_reduce_$b.log) t=$SECONDS"
done
cd $OUT && tar cJf call6.tar.xz call6 && rm -rf call6
