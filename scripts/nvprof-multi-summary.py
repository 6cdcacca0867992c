#!/usr/bin/env python3
"""multi under `warpscope nvprof --csv -u ms --profile-child-processes`: each kernel's total GPU time in
the summary against the program's own CUDA events (its `events: NAME LAUNCHES TOTAL_MS` lines), parent
and child. Passes when every kernel is within 2 %.
"""
import csv
import os
import sys


def main(out):
    events = {}
    for line in open(os.path.join(out, "multi-summary-csv.out")):
        if line.startswith("events: "):
            _, name, n, ms = line.split()
            events[name] = (int(n), float(ms))
    lines = [l for l in open(os.path.join(out, "multi-summary-csv.err")) if l.startswith('"') or l.startswith(",")]
    rows = []
    header = None
    for row in csv.reader(lines):
        if row and row[0] == "Type":
            header = row
            continue
        if header and row and row[0] == "GPU activities":
            rows.append(dict(zip(header, row)))
    ok_all = bool(events)
    print(f"{'kernel':>16} | {'launches ev/ws':>14} | {'CUDA events ms':>14} | {'warpscope ms':>12} | {'diff':>7} | ok")
    for name, (n, ms) in events.items():
        base = name.split("<")[0]
        match = [r for r in rows if r["Name"].split("(")[0].split("<")[0].split(" ")[-1] == base]
        if not match:
            print(f"{name:>16} | {n:>6}/{'-':<7} | {ms:14.4f} | {'-':>12} | {'-':>7} | NO")
            ok_all = False
            continue
        ws = sum(float(r["Time"]) for r in match)
        calls = sum(int(r["Calls"]) for r in match)
        d = 100 * (ws - ms) / ms
        ok = abs(d) <= 2.0 and calls == n
        ok_all = ok_all and ok
        print(f"{name:>16} | {n:>6}/{calls:<7} | {ms:14.4f} | {ws:12.4f} | {d:+6.2f}% | {'yes' if ok else 'NO'}")
    print("every kernel within 2 % of its CUDA events:", "yes" if ok_all else "NO")
    for step in ("multi-child-metrics", "multi-together-metrics"):
        child_metrics(out, step)
    concurrency(out)


def overlapping(path):
    """The overlap phase's kernels in a --csv GPU trace: how many, and how many start before the one
    before them ends."""
    rows = [r for r in csv.reader(l for l in open(path) if l[:1].isdigit())]
    spans = []
    header = None
    for r in csv.reader(l for l in open(path) if l.startswith('"Start"')):
        header = r
    if not header:
        return 0, 0
    units = None
    for l in open(path):
        if l.startswith("ms,") or l.startswith("s,") or l.startswith("us,") or l.startswith("ns,"):
            units = l.split(",")[:2]
    scale = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}
    name = header.index("Name")
    for r in rows:
        if len(r) == len(header) and r[name].startswith("overlap("):
            start = float(r[0]) * scale[units[0]]
            spans.append((start, start + float(r[1]) * scale[units[1]]))
    spans.sort()
    return len(spans), sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1])


def concurrency(out):
    """--concurrent-kernels: on, the overlap phase's kernels overlap; off, none does."""
    if not os.path.exists(os.path.join(out, "multi-serial.err")):
        return
    n_on, over_on = overlapping(os.path.join(out, "multi-trace-csv.err"))
    n_off, over_off = overlapping(os.path.join(out, "multi-serial.err"))
    ok = n_on == n_off == 10 and over_on > 0 and over_off == 0
    print(f"--concurrent-kernels on: {over_on} of {n_on} overlap kernels start before the one before ends; "
          f"off: {over_off} of {n_off} {'yes' if ok else 'NO'}")


def child_metrics(out, step):
    """Parent and child both profiled: each kernel of both processes has both metrics, with as many
    invocations as the program launched, and the run exits 0."""
    path = os.path.join(out, step + ".err")
    if not os.path.exists(path):
        return
    want = {"busy": 10, "scale": 10, "stencil": 4, "child_kernel": 5}
    got = {}
    lines = [l for l in open(path) if l.startswith('"')]
    header = None
    for row in csv.reader(lines):
        if row and row[0] == "Device":
            header = row
            continue
        if header and len(row) == len(header):
            r = dict(zip(header, row))
            base = r["Kernel"].split("(")[0].split("<")[0].split(" ")[-1]
            got.setdefault(base, {})[r["Metric Name"]] = (int(r["Invocations"]), r["Avg"])
    rc = None
    for l in open(os.path.join(out, "steps.txt")):
        if l.split()[0:1] == [step]:
            rc = l.split()[2]
    ok = rc == "0"
    print(f"{step}: exit {rc}")
    for k, n in want.items():
        m = got.get(k, {})
        both = all(x in m and m[x][0] >= n for x in ("achieved_occupancy", "gld_efficiency"))
        ok = ok and both
        shown = ", ".join(f"{x} {v[1]} ({v[0]} launches)" for x, v in m.items()) or "none"
        print(f"  {k:>12}: {shown} {'yes' if both else 'NO'}")
    turns = [l.strip() for l in open(path) if "timing:" in l]
    for t in turns:
        print("  " + t[t.find("timing:"):])
    print(f"  parent and child both profiled: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main(sys.argv[1])
