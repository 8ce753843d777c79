#!/usr/bin/env bash
# Session 8, call 6: does wgmma's per-element result depend on operand order (swap AB) or N?
d=$(cd "$(dirname "$0")" && pwd)
chmod +x $d/wgmma_bits
mkdir -p $OUT/r6
$d/wgmma_bits | tee $OUT/r6/wgmma_bits.txt
