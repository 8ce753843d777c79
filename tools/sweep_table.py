#!/usr/bin/env python3
"""One table of gpu_throughput medians (us) from several fusekit_bench_reduce JSON files: a row per
case, a column per file (its name without sweep_ and .json)."""
import json
import os
import sys

cols, table = [], {}
for path in sys.argv[1:]:
    label = os.path.basename(path).removeprefix("sweep_").removesuffix(".json")
    cols.append(label)
    try:
        runs = json.load(open(path))["benchmarks"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        continue
    for b in runs:
        parts = b["name"].split("/")
        if len(parts) < 6 or "us" not in b:
            continue
        table.setdefault("/".join(parts[1:4]), {})[label] = b["us"]
print("case".ljust(40) + "".join(c[:14].rjust(15) for c in cols))
for case, v in table.items():
    print(case.ljust(40) + "".join((f"{v[c]:.2f}" if c in v else "-").rjust(15) for c in cols))
