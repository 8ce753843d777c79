#!/usr/bin/env python3
"""Same-call A/B of benchmark JSONs named <prefix>_<label>_<rep>.json under DIR: the median us of
each label (mean over its repetitions) and each label's speed relative to the first.
  ab.py DIR PREFIX LABEL0 LABEL1 ...   e.g. ab.py call3 gemm bin exp"""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tools"))
from sweep_table import print_ab

print_ab(sys.argv[1], sys.argv[2], sys.argv[3:], key=lambda parts: "/".join(parts[:-2]))
