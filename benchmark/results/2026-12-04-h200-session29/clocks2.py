#!/usr/bin/env python3
"""Like clocks.py for cases.sh's windows: label, each benchmark's median us, the SM clock (median,
min) and power of the nvidia-smi samples in the window where utilization >= 50%."""
import sys, json, datetime, statistics as st
o = sys.argv[1]
rows = []
for line in open(f"{o}/samples.csv"):
    p = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((t, float(p[1].split()[0]), float(p[2].split()[0]), float(p[3].split()[0])))
    except Exception:
        pass
for line in open(f"{o}/windows.txt"):
    label, _, _, t0, t1 = line.split()
    w = [r for r in rows if float(t0) <= r[0] <= float(t1) and r[3] >= 50]
    res = []
    for l in open(f"{o}/bench_{label}.txt"):  # the harness's progress lines (also for runs that fail validation)
        if l.startswith("[fusekit-bench") and " us " in l:
            name = l.split("] ")[1].split()[0]
            res.append((name.split("/")[4] + ("(invalid)" if "INVALID" in l else ""), float(l.split("] ")[1].split()[1])))
    res = res or [("error", float("nan"))]
    clk = f"{st.median(r[1] for r in w):.0f} {min(r[1] for r in w):.0f} {st.median(r[2] for r in w):.0f}W n={len(w)}" if w else "no samples"
    print(f"{label:28s}", " ".join(f"{i}={u:.1f}" for i, u in res), "|", clk)
