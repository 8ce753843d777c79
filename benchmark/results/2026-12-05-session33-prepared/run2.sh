#!/usr/bin/env bash
# Session 33 call 2: two ways to cheapen the GEMM epilogue's store, against main.
#  - batched/ (wip/store-batched): StoreRows loads two runs of the staged tile before storing the
#    first, and on the 232-token tiles (fc1 at 925 tokens) four, with the GLU node two items at a
#    time (same bits). Its whole GEMM suite first.
#  - bulk/ (wip/bulk-store) with FUSEKIT_GEMM_STORE=bulk: the tile stored by the copy engine.
# The four H3 linears, fused and bare, at 70, 925 and 4096 tokens, 15 samples, cuBLASLt in every
# run; main, batched, bulk, twice alternating.   OUT=... bash carry/s33/run2.sh
set -u
source "$(dirname "$0")/common.sh"
o=$OUT/call2; mkdir -p $o; gpu_info $o
timeout 240 $d/batched/fusekit_test_gemm > $o/test_gemm_batched.log 2>&1
echo "test_gemm batched rc=$? $(grep 'test cases' $o/test_gemm_batched.log) t=$SECONDS"
G='^gemm/(qkv_proj|out_proj|fc1|fc2)/bf16/tokens=[0-9]+/(fusekit|fusekit_bare|cublaslt)/gpu_throughput/'
for r in 1 2; do
  bench gemm_main_$r 110 $d/main/fusekit_bench_gemm "$G" 15 FUSEKIT_GEMM_TOKENS=70,925,4096
  bench gemm_batched_$r 110 $d/batched/fusekit_bench_gemm "$G" 15 FUSEKIT_GEMM_TOKENS=70,925,4096
  bench gemm_bulk_$r 110 $d/bulk/fusekit_bench_gemm "$G" 15 FUSEKIT_GEMM_TOKENS=70,925,4096 FUSEKIT_GEMM_STORE=bulk
done
python3 $d/ab.py $o gemm main batched bulk | tee $o/table_gemm.txt
cd $OUT && tar cJf call2.tar.xz call2 && rm -rf call2
