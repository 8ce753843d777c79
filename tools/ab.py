#!/usr/bin/env python3
"""Same-call A/B of benchmark JSONs named <prefix>_<label>_<rep>.json under DIR: the median us of
each label (mean over its repetitions) and each label's speed relative to the first.
  tools/ab.py DIR PREFIX LABEL0 LABEL1 ...   e.g. tools/ab.py call3 rows main trigger
(The runs come from tools/ab_common.sh's bench; the results folders' older ab.py copies did the same.)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_table import print_ab

print_ab(sys.argv[1], sys.argv[2], sys.argv[3:], key=lambda parts: "/".join(parts[:-2]))
