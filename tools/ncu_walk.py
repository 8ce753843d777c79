#!/usr/bin/env python3
"""The executed path of one kernel from ncu's SASS source page, per warp: which instructions ran,
how often, and where the stall samples fell. Input: the CSV of
`ncu -i REPORT --page source --print-source sass --csv` (plain or .xz).

  ncu_walk.py SRC.csv[.xz] WARPS [--walk FILE] [--regions A:NAME,B:NAME,...]

WARPS is the launch's warp count (grid x block / 32), so counts read as instructions a warp.
Prints the total, the opcode mix, and with --regions the instructions a warp in each region (a
region runs from its starting SASS line index to the next one's); --walk writes every executed
line as `index  per-warp-count  stall-samples  SASS`."""
import argparse
import collections
import csv
import io
import lzma


def rows_of(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        text = f.read()
    table = list(csv.reader(io.StringIO(text)))
    header_at = next(i for i, r in enumerate(table) if "Source" in r and "Instructions Executed" in r)
    header = table[header_at]
    source, executed = header.index("Source"), header.index("Instructions Executed")
    samples = header.index("Warp Stall Sampling (All Samples)")
    for index, r in enumerate(table[header_at + 1:]):
        count = r[executed].replace(",", "")
        if count.isdigit() and int(count) > 0:
            yield index, int(count), r[samples], r[source].strip()


def opcode(sass):
    words = sass.split()
    return words[1] if words[0].startswith("@") else words[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("warps", type=int)
    ap.add_argument("--walk")
    ap.add_argument("--regions", help="START:NAME,... (SASS line indices, ascending)")
    args = ap.parse_args()
    lines = list(rows_of(args.csv))
    total = sum(n for _, n, _, _ in lines) / args.warps
    print(f"{total:.1f} instructions a warp, {len(lines)} SASS lines executed")
    mix = collections.Counter()
    for _, n, _, sass in lines:
        mix[opcode(sass)] += n / args.warps
    print("  ".join(f"{op} {n:.1f}" for op, n in mix.most_common(24)))
    if args.regions:
        starts = [(int(a), name) for a, name in (r.split(":") for r in args.regions.split(","))]
        per = collections.OrderedDict((name, 0.0) for _, name in starts)
        for index, n, _, _ in lines:
            owner = [name for start, name in starts if start <= index]
            if owner:
                per[owner[-1]] += n / args.warps
        print("  ".join(f"{name} {n:.1f}" for name, n in per.items()))
    if args.walk:
        with open(args.walk, "w") as f:
            for index, n, stalls, sass in lines:
                f.write(f"{index:6d} {n / args.warps:7.2f} {stalls:>5} {sass}\n")


if __name__ == "__main__":
    main()
