#!/usr/bin/env python3
"""Same-call A/B of fusekit_bench_reduce JSONs: sweep_<label>_<rep>.json under DIR. Prints the median
us of each label (mean over its repetitions) and each label's speed relative to the first."""
import glob, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools"))
from sweep_table import read_medians

d, labels = sys.argv[1], sys.argv[2:]
t = {}
for label in labels:
    for path in sorted(glob.glob(f"{d}/sweep_{label}_*.json")):
        for case, us in read_medians(path, key=lambda parts: "/".join(parts[:4])).items():
            t.setdefault(case, {}).setdefault(label, []).append(us)
mean = lambda v: sum(v) / len(v)
print("case".ljust(44) + "".join(l.rjust(10) for l in labels) + "".join(f"{l} speed".rjust(12) for l in labels[1:]))
for case, v in t.items():
    row = case.ljust(44) + "".join((f"{mean(v[l]):.2f}" if l in v else "-").rjust(10) for l in labels)
    for l in labels[1:]:
        row += (f"{mean(v[labels[0]]) / mean(v[l]):.3f}" if l in v and labels[0] in v else "-").rjust(12)
    print(row)
