#!/usr/bin/env python3
"""Splits an ncu per-instruction SASS export (--page source --csv --print-source sass, gzipped) of
gemm_kernel_sm90 into main loop (up to the last HGMMA), epilogue (to the consumers' exit) and
producer, and prints samples, executed warp instructions and top stall reasons of each; with
--segments, the epilogue's instructions between named barriers (one segment per node).
  epilogue_regions.py qkv4096_fusekit.sass.csv.gz [--segments]"""
import collections, csv, gzip, sys

rows = list(csv.reader(gzip.open(sys.argv[1], "rt")))
hdr = rows[1]
src, smp, exe = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Instructions Executed")
stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
data = [r for r in rows[2:] if len(r) == len(hdr)]
num = lambda r, i: int(r[i] or 0)
last_mma = max(i for i, r in enumerate(data) if "HGMMA" in r[src])
first_tma = min(i for i, r in enumerate(data) if "UTMALDG" in r[src] and i > last_mma)
producer = max(i for i, r in enumerate(data) if "WARPSYNC.ALL" in r[src] and i < first_tma)
total = sum(num(r, smp) for r in data)
for name, (a, b) in {"main loop": (0, last_mma + 1), "epilogue": (last_mma + 1, producer),
                     "producer": (producer, len(data))}.items():
    seg = data[a:b]
    count = collections.Counter()
    for r in seg:
        for s in stalls:
            count[s[6:]] += num(r, hdr.index(s))
    s = sum(num(r, smp) for r in seg)
    print(f"{name:9s} [{a},{b}): {s} samples ({100 * s / total:.0f}%), {sum(num(r, exe) for r in seg) / 1e6:.2f}M warp "
          f"instructions; {count.most_common(5)}")
if "--segments" in sys.argv:
    start, ex, sm = last_mma + 1, 0, 0
    for i in range(last_mma + 1, producer):
        ex, sm = ex + num(data[i], exe), sm + num(data[i], smp)
        if "BAR.SYNC" in data[i][src] or i == producer - 1:
            print(f"  [{start},{i}] {ex / 1e6:7.2f}M instructions, {sm} samples")
            start, ex, sm = i + 1, 0, 0
