#!/usr/bin/env bash
# Session 8, call 7: the step 9c build (556d2cb's tree): the GPU suite on the portable main loop,
# and memcheck on the split-K cases (every way forced, H3's 70- and 925-row out_proj shape) and
# the CUDA-graph case.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/fusekit_test_gemm.xz 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $d/fusekit_test_gemm.xz
chmod +x $d/fusekit_test_gemm
o=$OUT/r7; mkdir -p $o
SECONDS=0
FUSEKIT_GEMM_PATH=portable timeout 200 $d/fusekit_test_gemm > $o/test_gemm_portable.log 2>&1; echo "portable rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_portable.log | tr '\n' ' ') t=$SECONDS"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc='linear: K segments*,linear: split tiles*,linear: long K*' > $o/sanitize_memcheck_split.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck_split.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck_split.log) t=$SECONDS"
cd $OUT && tar czf r7.tgz r7
