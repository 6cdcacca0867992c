#!/usr/bin/env python3
"""The overhead step of scripts/nvprof-check.sh: which profiling variant is fastest, and does it agree.

Reads OUTDIR/steps.txt (each step's wall time), OUTDIR/ovh-plain-PROG.out/err (the plain run) and
OUTDIR/ovh-VARIANT-PROG.json (`warpscope nvprof -o` exports, one per variant and program). For each
program and variant: the profiled launches, the overhead per profiled launch ((wall - plain wall) /
launches), the speed-up against the default and against ncu (matrixMul: ncu's wall time from this run,
else the issue's 127 ms per launch on an H100), and the largest disagreement with the default's values
launch by launch (matched on kernel and invocation): percentages and occupancy in points (limit 1),
everything else in per cent (limit 3). Ends with one line per program naming the fastest variant whose
values agree, and the fastest overall if that one does not.
"""
import json
import os
import sys

POINTS = {"%"}


def walls(out):
    """step name -> (exit code, seconds) from steps.txt."""
    got = {}
    try:
        for line in open(os.path.join(out, "steps.txt")):
            parts = line.split()
            if len(parts) >= 4 and parts[1] == "exit":
                got[parts[0]] = (parts[2], float(parts[3].rstrip("s")))
    except OSError:
        pass
    return got


def launches(path):
    """(kernel, invocation) -> {metric: (value, unit)} of the profiled launches of an export."""
    try:
        rep = json.load(open(path))
    except (OSError, ValueError):
        return None
    out = {}
    for r in rep.get("records", []):
        if not r.get("metrics"):
            continue
        key = (r.get("signature") or r["kernel"], r.get("invocation"))
        out[key] = {m["name"]: (m["value"], m["unit"]) for m in r["metrics"]}
    return out


def disagreement(base, other):
    """The largest difference in each of points and per cent, with the worst metric, and the launches
    of the default that the variant lacks."""
    worst_pt, worst_pct, where, missing = 0.0, 0.0, "", 0
    for key, ms in base.items():
        mine = other.get(key)
        if mine is None:
            missing += 1
            continue
        for name, (v, unit) in ms.items():
            if name not in mine:
                missing += 1
                continue
            w = mine[name][0]
            if unit in POINTS or (unit == "ratio" and max(abs(v), abs(w)) <= 1.0):
                scale = 100.0 if unit == "ratio" else 1.0
                d = abs(w - v) * scale
                if d > worst_pt:
                    worst_pt, where = d, f"{name} {v * scale:.2f}->{w * scale:.2f} pt"
            elif v != 0:
                d = abs(w - v) / abs(v) * 100
                if d > worst_pct:
                    worst_pct = d
                    if worst_pt <= 1.0:
                        where = f"{name} {v:.4g}->{w:.4g} ({d:.2f} %)"
    return worst_pt, worst_pct, where, missing


def main(out, variants, programs):
    t = walls(out)
    print(f"{'program':<10} {'variant':<22} {'exit':>4} {'wall s':>8} {'launches':>8} {'ms/launch':>9} "
          f"{'vs default':>10} {'vs ncu':>7} {'max pt':>6} {'max %':>6} agrees")
    verdicts = []
    for prog in programs:
        plain = t.get(f"ovh-plain-{prog}")
        base = launches(os.path.join(out, f"ovh-default-{prog}.json"))
        if plain is None or base is None:
            print(f"{prog}: no plain run or no default export, skipped")
            continue
        ncu = t.get(f"ovh-ncu-{prog}")
        rows = []
        for v in variants:
            step = t.get(f"ovh-{v}-{prog}")
            got = launches(os.path.join(out, f"ovh-{v}-{prog}.json"))
            if step is None or got is None or not got:
                print(f"{prog:<10} {v:<22} {step[0] if step else '-':>4}  no export (failed: see ovh-{v}-{prog}.err)")
                continue
            n = len(got)
            per = (step[1] - plain[1]) / n * 1e3
            pt, pct, where, missing = disagreement(base, got)
            agrees = step[0] == "0" and pt <= 1.0 and pct <= 3.0 and missing == 0
            rows.append((v, per, agrees))
            vs_ncu = ""
            if ncu is not None and ncu[0] == "0":
                vs_ncu = f"{(ncu[1] - plain[1]) / (step[1] - plain[1]):.1f}x"
            elif prog == "matrixMul":
                vs_ncu = f"{127.0 / per:.1f}x*"
            base_per = next((r[1] for r in rows if r[0] == "default"), per)
            note = "yes" if agrees else f"NO ({where}{f', {missing} missing' if missing else ''})"
            print(f"{prog:<10} {v:<22} {step[0]:>4} {step[1]:8.3f} {n:8d} {per:9.2f} {base_per / per:9.2f}x "
                  f"{vs_ncu:>7} {pt:6.2f} {pct:6.2f} {note}")
        if not rows:
            continue
        good = [r for r in rows if r[2]]
        best = min(rows, key=lambda r: r[1])
        if good:
            g = min(good, key=lambda r: r[1])
            verdicts.append(f"{prog}: FASTEST AGREEING VARIANT {g[0]}: {g[1]:.2f} ms per profiled launch "
                            f"(default {rows[0][1]:.2f} ms, {rows[0][1] / g[1]:.2f}x less)")
        if best[0] != (min(good, key=lambda r: r[1])[0] if good else None):
            verdicts.append(f"{prog}: fastest overall {best[0]} ({best[1]:.2f} ms) does NOT agree with the default")
    print("(vs ncu: ncu's overhead over ours, from this run; * = against the issue's 127 ms per launch)")
    for v in verdicts:
        print(v)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: nvprof-overhead-summary.py OUTDIR 'VARIANTS...' 'PROGRAMS...'")
    main(sys.argv[1], sys.argv[2].split(), sys.argv[3].split())
