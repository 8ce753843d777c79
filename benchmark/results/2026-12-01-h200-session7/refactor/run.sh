#!/usr/bin/env bash
# Session 7, call 8: the tile loops folded into for_each_row_item (a refactor): GPU suite on
# both main loops, memcheck on the small and odd cases.
set -u
d=$(cd "$(dirname "$0")" && pwd)
xz -d -k -f $d/fusekit_test_gemm.xz 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $d/fusekit_test_gemm.xz
chmod +x $d/fusekit_test_gemm
o=$OUT/q8; mkdir -p $o
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "hopper rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ')"
FUSEKIT_GEMM_PATH=portable timeout 200 $d/fusekit_test_gemm > $o/test_gemm_portable.log 2>&1; echo "portable rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_portable.log | tr '\n' ' ')"
cases='linear:*,linear_glu:*,linear_residual:*,HeadRmsNorm*,linear_qkv:*,fc1_swiglu: the tiny*,out_proj and fc2: the tiny*'
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $d/fusekit_test_gemm -tc="$cases" > $o/sanitize_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $o/sanitize_memcheck.log | tail -1) $(grep 'test cases' $o/sanitize_memcheck.log)"
