#!/usr/bin/env python3
"""One table of gpu_throughput medians (us) from several fusekit_bench_reduce JSON files: a row per
case, a column per file (its name without sweep_ and .json). read_medians() is shared with the
A/B tables of benchmark/results/*/ab_reduce.py."""
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
    return {key(b["name"].split("/")): b["us"] for b in runs if len(b["name"].split("/")) >= 6 and "us" in b}


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
