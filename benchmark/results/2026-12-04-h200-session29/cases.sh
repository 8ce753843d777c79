#!/usr/bin/env bash
# cases.sh BENCH OUTDIR CASEFILE: each line "label samples ENV=... filter" runs as its own process;
# windows.txt gets "label linear impl t0 t1" for clocks.py.
B=$1; o=$2
while read -r label samples envs filter; do
  [ -z "$label" ] && continue
  t0=$(date +%s.%N)
  env $envs FUSEKIT_GEMM_TOKENS=925 timeout 60 $B --require-gpu --skip-ceilings --samples=$samples \
    --benchmark_filter="$filter" --benchmark_out=$o/bench_${label}.json --benchmark_out_format=json > $o/bench_${label}.txt 2>&1
  echo "$label x x $t0 $(date +%s.%N)" >> $o/windows.txt
done < $3
