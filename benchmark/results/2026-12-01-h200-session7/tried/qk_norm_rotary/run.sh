#!/usr/bin/env bash
# Session 7, call 1: QkNormRotary (variant A: lane-strided channels; B: contiguous channels) vs
# the three-node qkv epilogue of 283fb25: GPU tests of A, memcheck/racecheck of the qkv cases,
# then qkv and the other linears' gpu_throughput, old/A/B alternating twice.
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/*.xz; do
  xz -d -k -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"
done
chmod +x "$d"/fusekit_*
export LD_LIBRARY_PATH=$d
o=$OUT/q1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $o/gpu.txt 2>&1
timeout 200 $d/fusekit_test_gemm > $o/test_gemm_hopper.log 2>&1; echo "test rc=$? $(grep -E 'test cases|assertions' $o/test_gemm_hopper.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $d/fusekit_test_gemm -tc='HeadRmsNorm*,linear_qkv:*' > $o/sanitize_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/sanitize_$tool.log | tail -1) $(grep 'test cases' $o/sanitize_$tool.log)"
done
run() { # name filter bin
  timeout 150 $3 --require-gpu --skip-ceilings --benchmark_filter="$2" --benchmark_out=$o/bench_$1.json --benchmark_out_format=json > $o/bench_$1.txt 2> $o/bench_$1.log
  echo "$1 rc=$?"; grep -E "qkv_proj.*(fusekit|bare)" $o/bench_$1.txt | awk '{print "   ", $1, $2, $3}'
}
f='qkv_proj/.*/gpu_throughput'
for r in 1 2; do
  run old$r "$f" $d/fusekit_bench_gemm_old
  run A$r "$f" $d/fusekit_bench_gemm
  [ -x $d/fusekit_bench_gemm_B ] && run B$r "$f" $d/fusekit_bench_gemm_B
done
# Where the spills are: local loads/stores per kernel, and the qkv kernels' SASS.
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for b in fusekit_bench_gemm fusekit_bench_gemm_old fusekit_bench_gemm_B; do
  $CUOBJ -sass $d/$b > /tmp/sass_$b.txt 2>/dev/null
  awk '/Function :/ {f=$3} /STL|LDL/ {c[f]++} END {for (k in c) print c[k], k}' /tmp/sass_$b.txt | sort -n > $o/spills_$b.txt
  awk '/Function :/ {keep = ($3 ~ /bfloat16Li2ELi3.*(QkNormRotary|HeadRmsNorm).*StoreSplit3IS3_/ || $3 ~ /bfloat16Li2ELi3.*StoreRowsIS3_EEEEELNS0_4KSumE0/)} keep' /tmp/sass_$b.txt | gzip > $o/sass_$b.txt.gz
done
cd $OUT && tar czf q1.tgz q1
