#!/usr/bin/env python3
"""Same-call A/B of fusekit_bench_reduce JSONs: sweep_<label>_<rep>.json under DIR. Prints the median
us of each label (mean over its repetitions) and each label's speed relative to the first."""
import glob, json, os, sys
d, labels = sys.argv[1], sys.argv[2:]
t = {}
for label in labels:
    for path in sorted(glob.glob(f"{d}/sweep_{label}_*.json")):
        try:
            runs = json.load(open(path))["benchmarks"]
        except (OSError, ValueError, KeyError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            continue
        for b in runs:
            if "us" not in b: continue
            case = "/".join(b["name"].split("/")[:4])
            t.setdefault(case, {}).setdefault(label, []).append(b["us"])
mean = lambda v: sum(v) / len(v)
print("case".ljust(44) + "".join(l.rjust(10) for l in labels) + "".join(f"{l} speed".rjust(12) for l in labels[1:]))
for case, v in t.items():
    row = case.ljust(44) + "".join((f"{mean(v[l]):.2f}" if l in v else "-").rjust(10) for l in labels)
    for l in labels[1:]:
        row += (f"{mean(v[labels[0]]) / mean(v[l]):.3f}" if l in v and labels[0] in v else "-").rjust(12)
    print(row)
