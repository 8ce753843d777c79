#!/usr/bin/env python3
"""Markdown tables from harness and torch-probe JSON: one row per case and mode, fusekit beside
its in-process baseline and torch, with the ratios quoted in benchmark/RESULTS.md.

  python3 benchmark/summarize.py RUN.json [TORCH.json ...] [--suite reduce] [--mode gpu_throughput]
"""
import argparse
import json
import re
from collections import defaultdict


def load(paths):
    runs, context = {}, {}
    for path in paths:
        text = open(path).read()
        doc = json.loads(text)
        for key, value in doc.get("context", {}).items():
            context.setdefault(key, value)  # the first report (fusekit's) names the device and ceilings
        for b in doc.get("benchmarks", []):
            parts = b["name"].split("/")
            if len(parts) < 6 or "us" not in b:
                continue
            suite, op, dtype, shape, impl, mode = parts[:6]
            runs[(suite, op, dtype, shape, mode, impl)] = b
    return runs, context


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("--suite", default="")
    ap.add_argument("--mode", default="")
    args = ap.parse_args()
    runs, ctx = load(args.json)
    print(f"device {ctx.get('fusekit_device', '?')}, commit {ctx.get('fusekit_commit', '?')}, "
          f"copy ceiling {float(ctx.get('fusekit_copy_gbps', 0)):.0f} GB/s, date {ctx.get('date', '?')[:10]}\n")
    cases = defaultdict(dict)
    for (suite, op, dtype, shape, mode, impl), b in runs.items():
        if args.suite and not re.fullmatch(args.suite, suite):
            continue
        if args.mode and mode != args.mode:
            continue
        cases[(suite, op, dtype, shape, mode)][impl] = b
    print("| suite | op | dtype | shape | mode | fusekit us | GB/s | of copy ceiling | of copy at this size | baseline | baseline us | fusekit speed-up | torch us | vs torch |")
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for key in sorted(cases):
        impls = cases[key]
        f = impls.get("fusekit")
        if not f:
            continue
        base_name = next((n for n in ("plain", "cublaslt", "unfused") if n in impls), None)
        base = impls.get(base_name) if base_name else None
        torch = impls.get("torch")
        copy = impls.get("copy")
        cells = list(key) + [f"{f['us']:.2f}", f"{f['GB/s']:.0f}", f"{f['copy_ratio']:.1%}",
                             f"{copy['us'] / f['us']:.1%}" if copy else "-"]
        cells += [base_name or "-", f"{base['us']:.2f}" if base else "-", f"{base['us'] / f['us']:.2f}x" if base else "-"]
        cells += [f"{torch['us']:.2f}" if torch else "-", f"{torch['us'] / f['us']:.2f}x" if torch else "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
