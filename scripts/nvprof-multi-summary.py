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


if __name__ == "__main__":
    main(sys.argv[1])
