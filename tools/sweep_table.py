#!/usr/bin/env python3
"""One table of gpu_throughput medians (us) from several fusekit_bench_reduce JSON files: a row per
case, a column per file (its name without sweep_ and .json). read_medians() and print_ab() are
shared with the A/B scripts of benchmark/results/*/ (ab_reduce.py, ab.py)."""
import glob
import json
import os
import sys


def read_medians(path, key=lambda parts: "/".join(parts[1:4])):
    """{case: median us} of one benchmark JSON (the case named by key(name parts)); {} if unreadable."""
    try:
        runs = json.load(open(path))["benchmarks"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return {}
    named = ((b["name"].split("/"), b) for b in runs)
    return {key(parts): b["us"] for parts, b in named if len(parts) >= 6 and "us" in b}


def print_ab(d, prefix, labels, key, width=None):
    """Same-call A/B of DIR/<prefix>_<label>_<rep>.json: the median us of each label (mean over its
    repetitions) and each label's speed relative to the first; `width` of the case column (None: the
    longest case name + 2)."""
    t = {}
    for label in labels:
        for path in sorted(glob.glob(f"{d}/{prefix}_{label}_*.json")):
            for case, us in read_medians(path, key=key).items():
                t.setdefault(case, {}).setdefault(label, []).append(us)
    mean = lambda v: sum(v) / len(v)
    if width is None:
        width = max(len(c) for c in t) + 2 if t else 10
    print("case".ljust(width) + "".join(l.rjust(10) for l in labels) + "".join(f"{l} speed".rjust(12) for l in labels[1:]))
    for case, v in t.items():
        row = case.ljust(width) + "".join((f"{mean(v[l]):.2f}" if l in v else "-").rjust(10) for l in labels)
        for l in labels[1:]:
            row += (f"{mean(v[labels[0]]) / mean(v[l]):.3f}" if l in v and labels[0] in v else "-").rjust(12)
        print(row)


if __name__ == "__main__":
    cols, table = [], {}
    for path in sys.argv[1:]:
        label = os.path.basename(path).removeprefix("sweep_").removesuffix(".json")
        cols.append(label)
        for case, us in read_medians(path).items():
            table.setdefault(case, {})[label] = us
    print("case".ljust(40) + "".join(c[:14].rjust(15) for c in cols))
    for case, v in table.items():
        print(case.ljust(40) + "".join((f"{v[c]:.2f}" if c in v else "-").rjust(15) for c in cols))
