#!/usr/bin/env python3
"""Same-call A/B of fusekit_bench_reduce JSONs (repetitions, median aggregates): us per case per run, and base/new."""
import json, os, sys
runs = sys.argv[1:]
t = {}
for r in runs:
    p = f"{os.environ['O']}/{r}.json"
    if not os.path.exists(p): continue
    for b in json.load(open(p))["benchmarks"]:
        if b.get("aggregate_name") != "median": continue
        name = b["run_name"].split("/iterations")[0]
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        t.setdefault(name, {})[r] = b["real_time"] * scale
base = [r for r in runs if r.startswith("base")]
new = [r for r in runs if r.startswith("new")]
print("case " + " ".join(runs) + " base/new")
for k in sorted(t):
    v = t[k]
    b = sum(v[r] for r in base if r in v) / max(1, sum(r in v for r in base))
    n = sum(v[r] for r in new if r in v) / max(1, sum(r in v for r in new))
    print(k, *[f"{v.get(r, float('nan')):.2f}" for r in runs], f"{b / n:.3f}" if n else "nan")
