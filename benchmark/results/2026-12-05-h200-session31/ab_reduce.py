#!/usr/bin/env python3
"""Same-call A/B of fusekit_bench_reduce JSONs: sweep_<label>_<rep>.json under DIR. Prints the median
us of each label (mean over its repetitions) and each label's speed relative to the first."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools"))
from sweep_table import print_ab

print_ab(sys.argv[1], "sweep", sys.argv[2:], key=lambda parts: "/".join(parts[:4]), width=44)
