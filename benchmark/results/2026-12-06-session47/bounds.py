#!/usr/bin/env python3
"""Issue #2's bandwidth targets beside what a copy of the same bytes reaches on the same card.

usage: bounds.py FUSEKIT_JSON COPY_JSON [CEILING_GBPS]
Each JSON is a fusekit_bench_reduce --benchmark_out file; FUSEKIT_JSON gives reduce_bw/*/fusekit and
h3_norm*/fusekit gpu_throughput medians, COPY_JSON the size-matched reduce_bw/*/copy cases (they may be
the same file). The ceiling defaults to the one FUSEKIT_JSON's run measured (fusekit_copy_gbps).
"""
import json
import sys


def cases(path, impl):
    d = json.load(open(path))
    out = {}
    for b in d["benchmarks"]:
        p = b["name"].split("/")
        if len(p) < 6 or p[4] != impl or p[5] != "gpu_throughput" or b.get("run_type") == "aggregate":
            continue
        out.setdefault((p[0], p[1], p[2], p[3]), b)
    return d.get("context", {}), out


ctx, fk = cases(sys.argv[1], "fusekit")
_, cp = cases(sys.argv[2], "copy")
ceiling = float(sys.argv[3]) if len(sys.argv) > 3 else float(ctx.get("fusekit_copy_gbps", 4240))
print(f"copy ceiling {ceiling:.0f} GB/s; target: >= 95% of it at >= 8M elements (N 1024-16384), >= 85% at N >= 65536")
print("| op | dtype | shape | fusekit us | fusekit % of ceiling | same-bytes memcpy us | memcpy % of ceiling | target | above memcpy? |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
for key, b in sorted(fk.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][3])):
    if key[0] != "reduce_bw":
        continue
    rows, cols = map(int, key[3].split("x"))
    if rows * cols < 8 << 20 and cols < 65536:
        continue
    target = 0.85 if cols >= 65536 else 0.95
    size = 4 if key[2] == "f32" else 2
    gbytes = 2 * rows * cols * size / 1e3  # read + write, in GB/s * us
    c = cp.get(key[:4])
    fk_pct = 100 * gbytes / b["us"] / ceiling
    if c:
        c_pct = 100 * gbytes / c["us"] / ceiling
        print(f"| {key[1]} | {key[2]} | {key[3]} | {b['us']:.2f} | {fk_pct:.1f}% | {c['us']:.2f} | {c_pct:.1f}% | {100*target:.0f}% | {'yes' if c_pct < 100*target else 'no'} |")
    else:
        print(f"| {key[1]} | {key[2]} | {key[3]} | {b['us']:.2f} | {fk_pct:.1f}% | | | {100*target:.0f}% | |")
