#!/usr/bin/env bash
# Session 29 call 5: call 4 again with the probe keeping every accumulator live (a sum of the fragment and a trap on an impossible value: ptxas had dropped the wgmmas of call 4's probe, kept in probe_dce/); HGMMA counted in both. probe/fusekit_bench_gemm is the wide build with every
# swapped kernel's epilogue left out (FUSEKIT_PROBE_NO_EPILOGUE=1: no staging, no stores; its
# outputs fail validation, the times stand); wide/ is the same code with the epilogue. Cases
# p_* run the probe, e_* and cub* the wide build; short (15 samples) and sustained (600).
set -u
d=$(cd "$(dirname "$0")" && pwd)
for f in "$d"/wide/*.xz "$d"/probe/*.xz "$d"/probe_dce/*.xz; do [ -f "${f%.xz}" ] || xz -d -k -f "$f"; done
chmod +x $d/wide/* $d/probe/* $d/probe_dce/*; export LD_LIBRARY_PATH=$d
o=$OUT/call5; mkdir -p $o; SECONDS=0
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $o/samples.csv 2>&1 &
smi=$!
grep "^p_" $d/cases4.txt > $o/cases_p.txt; grep -v "^p_" $d/cases4.txt > $o/cases_e.txt
# keep the file order: run line by line with the binary each label names
while read -r line; do
  echo "$line" > $o/one.txt
  case "$line" in p_*) b=$d/probe/fusekit_bench_gemm;; *) b=$d/wide/fusekit_bench_gemm;; esac
  bash $d/cases.sh $b $o $o/one.txt
done < $d/cases4.txt
kill $smi
for b in probe probe_dce wide; do echo "$b HGMMA: $(cuobjdump -sass $d/$b/fusekit_bench_gemm 2>/dev/null | grep -c HGMMA)"; done | tee $o/hgmma.txt
python3 $d/clocks2.py $o | tee $o/clocks.txt
echo "t=$SECONDS"
cd $OUT && tar cJf call5.tar.xz call5 && rm -rf call5
