#!/usr/bin/env python3
"""Plots from benchmark JSON (fusekit harness reports and torch_probe.py reports) and audits.

  python3 benchmark/plot.py suites REPORT.json [REPORT.json ...] --out DIR [--mode gpu_throughput]
      one PNG per suite: achieved GB/s (memory-bound cases) or TFLOP/s (cases with FLOPs) per case,
      one bar per implementation (fusekit, baselines, torch), the copy / GEMM ceiling drawn as a line.
  python3 benchmark/plot.py audit AUDIT.json --out FILE.png
      per record and mode: gain (reference_us / candidate_us) median with its min..max over rounds,
      coloured by verdict.
"""
import argparse
import collections
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODES = ["gpu_throughput", "e2e_throughput", "gpu_latency", "e2e_latency"]
VERDICT_COLOURS = {"FASTER": "tab:green", "SLOWER": "tab:red", "SAME": "tab:gray", "NOISY": "tab:orange"}


def load_runs(paths, mode):
    """{suite: {case: {impl: row}}} for one mode, and the ceilings from the reports' context."""
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    copy = gemm = None
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        ctx = doc.get("context", {})
        copy = copy or float(ctx.get("fusekit_copy_gbps", 0)) or None
        gemm = gemm or float(ctx.get("fusekit_gemm_tflops", 0)) or None
        for row in doc.get("benchmarks", []):
            parts = row.get("name", "").split("/")
            if len(parts) < 6 or parts[5] != mode or row.get("run_type") == "aggregate" or row.get("error_occurred"):
                continue
            suite, case, impl = parts[0], "/".join(parts[1:4]), parts[4]
            runs[suite][case][impl] = row
    return runs, copy, gemm


def plot_suites(args):
    runs, copy, gemm = load_runs(args.reports, args.mode)
    os.makedirs(args.out, exist_ok=True)
    for suite, cases in sorted(runs.items()):
        compute = any(r.get("flops", 0) > 0 for impls in cases.values() for r in impls.values())
        key, unit, ceiling = ("TFLOP/s", "TFLOP/s", gemm) if compute else ("GB/s", "GB/s", copy)
        impls = sorted({i for impls in cases.values() for i in impls}, key=lambda i: (i == "torch", i != "fusekit", i))
        names = list(cases)
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(names) * max(1, len(impls)) / 2), 4.5))
        width = 0.8 / max(1, len(impls))
        for k, impl in enumerate(impls):
            xs = [i + (k - (len(impls) - 1) / 2) * width for i in range(len(names))]
            ys = [cases[n].get(impl, {}).get(key, 0) for n in names]
            ax.bar(xs, ys, width, label=impl)
        if ceiling:
            ax.axhline(ceiling, color="black", linestyle="--", linewidth=1,
                       label=f"{'bf16 GEMM' if compute else 'copy'} ceiling {ceiling:.0f} {unit}")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
        ax.set_ylabel(f"achieved {unit}")
        ax.set_title(f"{suite}: {args.mode}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(args.out, f"{suite}_{args.mode}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(f"plot: {path}", file=sys.stderr)


def plot_audit(args):
    with open(args.audit) as f:
        audit = json.load(f)
    records = audit.get("records", [])
    fig, axes = plt.subplots(1, len(MODES), figsize=(4 * len(MODES), 0.35 * len(records) + 2), sharey=True)
    for ax, mode in zip(axes, MODES):
        for y, rec in enumerate(records):
            m = rec.get(mode)
            if not m:
                continue
            colour = VERDICT_COLOURS.get(m.get("verdict"), "black")
            ax.plot([m["gain_min"], m["gain_max"]], [y, y], color=colour, linewidth=2)
            ax.plot([m["gain"]], [y], "o", color=colour)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(mode, fontsize=9)
        ax.set_xlabel("gain (reference / candidate time)", fontsize=8)
    axes[0].set_yticks(range(len(records)))
    axes[0].set_yticklabels([r["name"] for r in records], fontsize=7)
    handles = [plt.Line2D([], [], color=c, marker="o", label=v) for v, c in VERDICT_COLOURS.items()]
    fig.legend(handles=handles, loc="upper right", fontsize=7)
    fig.suptitle(f"audit {audit.get('status')}: median gain and its range over rounds", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot: {args.out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("suites")
    s.add_argument("reports", nargs="+")
    s.add_argument("--out", required=True)
    s.add_argument("--mode", default="gpu_throughput", choices=MODES)
    a = sub.add_parser("audit")
    a.add_argument("audit")
    a.add_argument("--out", required=True)
    args = ap.parse_args()
    plot_suites(args) if args.what == "suites" else plot_audit(args)


if __name__ == "__main__":
    main()
