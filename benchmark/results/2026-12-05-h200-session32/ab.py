#!/usr/bin/env python3
"""Same-call A/B of benchmark JSONs named <prefix>_<label>_<rep>.json under DIR: the median us of
each label (mean over its repetitions) and each label's speed relative to the first.
  ab.py DIR PREFIX LABEL0 LABEL1 ...   e.g. ab.py call3 gemm bin exp"""
import glob, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools"))
from sweep_table import read_medians

d, prefix, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
t = {}
for label in labels:
    for path in sorted(glob.glob(f"{d}/{prefix}_{label}_*.json")):
        for case, us in read_medians(path, key=lambda parts: "/".join(parts[:-2])).items():
            t.setdefault(case, {}).setdefault(label, []).append(us)
mean = lambda v: sum(v) / len(v)
width = max(len(c) for c in t) + 2 if t else 10
print("case".ljust(width) + "".join(l.rjust(10) for l in labels) + "".join(f"{l} speed".rjust(12) for l in labels[1:]))
for case, v in t.items():
    row = case.ljust(width) + "".join((f"{mean(v[l]):.2f}" if l in v else "-").rjust(10) for l in labels)
    for l in labels[1:]:
        row += (f"{mean(v[labels[0]]) / mean(v[l]):.3f}" if l in v and labels[0] in v else "-").rjust(12)
    print(row)
