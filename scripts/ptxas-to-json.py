#!/usr/bin/env python3
"""Turns the `ptxas -v` log written by regen-ptx.sh into kernels-ptx/resources.json:
{"<entry>": {"sm_90": {"registers": 12, "static_smem": 0, "local_bytes": 0, "barriers": 0}, ...}, ...}"""
import json
import re
import sys

entries = {}
current = None
sm = None
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.search(r"Compiling entry function '([^']+)' for '(sm_\d+)'", line)
    if m:
        current, sm = m.group(1), m.group(2)
        entries.setdefault(current, {})[sm] = {"registers": 0, "static_smem": 0, "local_bytes": 0, "barriers": 0}
        continue
    if current is None:
        continue
    rec = entries[current][sm]
    m = re.search(r"(\d+) bytes stack frame", line)
    if m:
        rec["local_bytes"] = int(m.group(1))
    m = re.search(r"Used (\d+) registers", line)
    if m:
        rec["registers"] = int(m.group(1))
    m = re.search(r"used (\d+) barriers", line)
    if m:
        rec["barriers"] = int(m.group(1))
    m = re.search(r"(\d+) bytes smem", line)
    if m:
        rec["static_smem"] = int(m.group(1))

json.dump({k: dict(sorted(v.items())) for k, v in sorted(entries.items())}, sys.stdout, indent=2, sort_keys=True)
sys.stdout.write("\n")
