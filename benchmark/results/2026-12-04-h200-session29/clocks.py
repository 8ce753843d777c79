#!/usr/bin/env python3
"""Per benchmark process (windows.txt): its median us, and the SM clock / power of the nvidia-smi
samples in its window where utilization is >= 50% (the GEMM running)."""
import sys, json, os, datetime, statistics as st
o = sys.argv[1]
rows = []
for line in open(f"{o}/samples.csv"):
    p = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((t, float(p[1].split()[0]), float(p[2].split()[0]), float(p[3]), p[5], float(p[4].split()[0])))
    except Exception:
        pass
print("data linear impl us  MHz(median) MHz(min) W(median) W(peak) n reasons")
for line in open(f"{o}/windows.txt"):
    data, lin, impl, t0, t1, rc = line.split()
    t0, t1 = float(t0), float(t1)
    w = [r for r in rows if t0 <= r[0] <= t1]
    us = float("nan")
    try:
        us = json.load(open(f"{o}/bench_{data}_{lin}_{impl}.json"))["benchmarks"][0]["us"]
    except Exception:
        pass
    if not w:
        print(data, lin, impl, f"{us:.1f}", "no samples"); continue
    peak = max(r[2] for r in w)
    busy = [r for r in w if r[5] >= 50] or [r for r in w if r[2] >= 0.6 * peak]
    reasons = sorted({r[4] for r in busy})
    print(data, lin, impl, f"{us:.1f}", st.median(r[1] for r in busy), min(r[1] for r in busy), st.median(r[2] for r in busy), peak, len(busy), " ".join(reasons))
