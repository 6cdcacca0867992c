#!/usr/bin/env python3
"""The seed shapes of scripts/nvprof-check.sh: warpscope nvprof against ncu, one line per shape.

Reads OUTDIR/seed-cmp-SHAPE.json (`warpscope compare --format json` of warpscope's export against ncu's
CSV), seed-ws-SHAPE.json (the export) and seed-ncu-SHAPE.out (ncu's CSV). A shape passes when every
metric is within 1 point (occupancy as %, efficiency) or 3 % (throughput) of ncu's and both profiled
the same kernels the same number of times.
"""
import csv
import json
import os
import sys

SHAPES = "32x32 32x16 16x32 16x16 64x2 64x4 64x8 128x2 128x4 128x8 256x2 256x4 256x8 128x1 256x1".split()
METRICS = ["achieved_occupancy", "gld_throughput", "gld_efficiency"]


def load(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def ncu_launches(path):
    """(kernel, launches) counts from ncu's CSV (one row per metric and launch)."""
    try:
        lines = [l for l in open(path) if l.startswith('"')]
    except OSError:
        return {}
    ids = {}
    for row in csv.DictReader(lines):
        name = row.get("Kernel Name", "").split("(")[0]
        ids.setdefault(name, set()).add((row.get("Process ID"), row.get("ID")))
    return {k: len(v) for k, v in ids.items()}


def main(out):
    ok_all = True
    print(f"{'shape':>7} | {'occupancy % ws/ncu (pts)':>24} | {'gld_throughput GB/s ws/ncu (%)':>32} | {'gld_efficiency % ws/ncu (pts)':>30} | launches ws/ncu | ok")
    for s in SHAPES:
        ws = load(os.path.join(out, f"seed-ws-{s}.json"), {"records": []})
        ours = {}
        for r in ws.get("records", []):
            if r.get("metrics"):
                ours[r["kernel"]] = ours.get(r["kernel"], 0) + 1
        theirs = ncu_launches(os.path.join(out, f"seed-ncu-{s}.out"))
        cmp = load(os.path.join(out, f"seed-cmp-{s}.json"), {"rows": []})
        rows = {r["metric"]: r for r in cmp.get("rows", [])}
        cells, ok = [], ours == theirs
        for m in METRICS:
            r = rows.get(m)
            if r is None:
                cells.append("-")
                ok = ok and not ours and not theirs
                continue
            if m == "achieved_occupancy":
                # `compare` shows occupancy in percent.
                d = r["ours"] - r["theirs"]
                cells.append(f"{r['ours']:.2f}/{r['theirs']:.2f} ({d:+.2f})")
                ok = ok and abs(d) <= 1.0
            elif m == "gld_efficiency":
                d = r["ours"] - r["theirs"]
                cells.append(f"{r['ours']:.2f}/{r['theirs']:.2f} ({d:+.2f})")
                ok = ok and abs(d) <= 1.0
            else:
                d = 100 * (r["ours"] - r["theirs"]) / r["theirs"] if r["theirs"] else float("nan")
                cells.append(f"{r['ours']:.1f}/{r['theirs']:.1f} ({d:+.2f}%)")
                ok = ok and abs(d) <= 3.0
        launches = f"{sum(ours.values())}/{sum(theirs.values())}"
        ok_all = ok_all and ok
        print(f"{s:>7} | {cells[0]:>24} | {cells[1]:>32} | {cells[2]:>30} | {launches:>15} | {'yes' if ok else 'NO'}")
    print("all shapes within 1 point / 3 % of ncu, same kernels and launches:", "yes" if ok_all else "NO")


if __name__ == "__main__":
    main(sys.argv[1])
