#!/usr/bin/env bash
# Twentieth session, call 4: where the library's bf16 LayerNorm and RMSNorm kernels (64 threads x
# 2 vectors, 4 rows a CTA, 8192 x 1024) spend their extra instructions against the probe at the
# same layout: ncu's per-SASS-instruction executed counts (SourceCounters), and the SASS itself.
# First, the new GEMM test: 70 rows alone against the same rows among 925 on the H3 long-K weights.
set -uo pipefail
d=$(cd "$(dirname "$0")" && pwd)
P="$d/row_layout_probe"
if [ -f "$d/fusekit_test_gemm.xz" ]; then
  xz -d -k -f "$d/fusekit_test_gemm.xz" && chmod +x "$d/fusekit_test_gemm"
  timeout 60 "$d/fusekit_test_gemm" -tc="linear: the H3 long-K*" > "$OUT/test_gemm_h3_prefix.log" 2>&1; echo "gemm test rc $?"
  tail -n 3 "$OUT/test_gemm_h3_prefix.log"
fi
mkdir -p "$OUT/src"
for k in 'row_kernelINS0_15LayerNormPolicy' 'probe_kernelILi64ELi2ELi4ELi1ELi1E' 'row_kernelINS0_13RmsNormPolicy' 'probe_kernelILi64ELi2ELi4ELi0ELi1E'; do
  case $k in *Rms*|*Li0ELi1E) c="rms_norm 8192x1024";; *) c="layer_norm 8192x1024";; esac
  timeout 100 ncu --clock-control none --kernel-name-base mangled --kernel-name "regex:$k" -c 1 --section SourceCounters \
    --page source --print-source sass --csv "$P" "$c" > "$OUT/src/$k.csv" 2> "$OUT/src/$k.err"; echo "ncu $k rc $? $(wc -l < "$OUT/src/$k.csv") lines"
done
for k in $(cuobjdump -symbols "$P" 2>/dev/null | grep -o '_ZN7fusekit6reduce10row_kernelINS0_1[35][A-Za-z]*PolicyE13__nv_bfloat16S3_LNS0_8RowShapeE1ELb1EEEvNS0_9RowParamsEi\|_Z12probe_kernelILi64ELi2ELi4ELi[01]ELi1EEv4Args' | sort -u); do
  cuobjdump -sass -fun "$k" "$P" > "$OUT/src/sass_${k:0:50}.txt" 2>&1
done
cd "$OUT" && tar cJf src.tar.xz src && rm -rf src && ls -la
