#!/usr/bin/env python3
"""Same-call A/B of fusekit_bench_gemm JSONs: median us ("us" counter) per (linear, tokens, impl) for each run."""
import json, sys, os
runs = sys.argv[1:]
t = {}
for r in runs:
    p = f"{os.environ['O']}/bench_{r}.json"
    if not os.path.exists(p): continue
    for b in json.load(open(p))["benchmarks"]:
        x = b["run_name"].split("/")
        t.setdefault((x[1], int(x[3].split("=")[1]), x[4]), {})[r] = b.get("us", b["real_time"])
print("linear tokens impl " + " ".join(runs))
for k in sorted(t):
    print(*k, *[f"{t[k].get(r, float('nan')):.1f}" for r in runs])
