#!/usr/bin/env python3
"""tests/programs/graph.cu and threads.cu under `warpscope nvprof` and ncu (`--cache-control none`, as
nvprof and warpscope run kernels). graph: the program's results stay right, every kernel launched
through a CUDA graph gets its metrics (as many invocations as the program launched, in the summary and in
the GPU trace), the kernel filter applies to graph kernels, a graph instantiated while the profiler was
stopped runs right without metrics. threads: 4 host threads launching at once keep their results and
every launch's metrics. Both: each kernel's averages within 3 points (achieved occupancy) and 3 %
(gld_efficiency) of ncu's over the same launches. Passes when all of that holds.
region: --profile-from-start off records only what runs between cudaProfilerStart and Stop.
twogpu: a program on two GPUs, each device's kernels profiled on it; --devices picks.
  nvprof-programs-summary.py OUTDIR graph|threads|region|twogpu
"""
import csv
import os
import re
import sys


def steps(out):
    rc = {}
    for line in open(os.path.join(out, "steps.txt")):
        f = line.split()
        if len(f) >= 3:
            rc[f[0]] = f[2]
    return rc


def base(kernel):
    m = re.match(r"_Z(\d+)(\w+)", kernel)  # the metric trace names kernels by their mangled symbol
    if m:
        return m.group(2)[: int(m.group(1))]
    return kernel.split("(")[0].split("<")[0].split(" ")[-1]


def table(path, first, quoted=True):
    """The rows (as dicts) of the --csv tables in `path` whose header's first cell is `first`."""
    header = None
    lines = (l for l in open(path) if l.startswith('"') or (not quoted and l.startswith(",")))
    for row in csv.reader(lines):
        if row and row[0] == first:
            header = row
        elif header and len(row) == len(header):
            yield dict(zip(header, row))


def metric_rows(path):
    """nvprof's --csv metric result: (kernel, metric) -> (invocations, avg)."""
    return {(base(r["Kernel"]), r["Metric Name"]): (int(r["Invocations"]), float(r["Avg"].rstrip("%")))
            for r in table(path, "Device")}


def against_ncu(out, prog, want, got):
    """Each kernel's invocations and averages against ncu's; true when all agree."""
    ncu = {}
    for r in table(os.path.join(out, prog + "-ncu.out"), "ID"):
        ncu.setdefault((base(r["Kernel Name"]), r["Metric Name"]), []).append(float(r["Metric Value"].replace(",", "")))
    names = {"achieved_occupancy": ("sm__warps_active.avg.pct_of_peak_sustained_active", 0.01, 0.03),
             "gld_efficiency": ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 1, None)}
    ok = True
    print(f"{'kernel':>8} | {'metric':>18} | {'launches ws/ncu/program':>24} | {'ws avg':>9} | {'ncu avg':>9}")
    for k, n in want.items():
        for m, (nm, scale, points) in names.items():
            inv, avg = got.get((k, m), (0, float("nan")))
            vals = ncu.get((k, nm), [])
            navg = sum(vals) / len(vals) * scale if vals else float("nan")
            close = abs(avg - navg) <= points if points else abs(avg - navg) <= 0.03 * abs(navg)
            good = inv == n and len(vals) == n and close
            ok = ok and good
            print(f"{k:>8} | {m:>18} | {inv:>8}/{len(vals)}/{n:<13} | {avg:9.4f} | {navg:9.4f} {'yes' if good else 'NO'}")
    return ok


def summary_calls(path):
    """nvprof's --csv GPU summary: name -> calls, for GPU activities."""
    return {(base(r["Name"]) if "(" in r["Name"] else r["Name"]): int(r["Calls"])
            for r in table(path, "Type", quoted=False) if r["Type"] == "GPU activities"}


def region(out):
    """--profile-from-start off: only what runs between cudaProfilerStart and Stop; on: from the start to
    the program's cudaProfilerStop."""
    rc = steps(out)
    ok = True
    for step in ("region-plain", "region-summary", "region-metrics", "region-from-start"):
        right = "region: 0 of" in open(os.path.join(out, step + ".out")).read()
        good = rc.get(step) == "0" and right
        ok = ok and good
        print(f"{step}: exit {rc.get(step)}, program's results {'right' if right else 'WRONG'}")
    want_off = {"work": 4, "other": 2, "[CUDA memset]": 1}
    want_on = {"work": 7, "other": 2, "[CUDA memset]": 1, "[CUDA memcpy HtoD]": 1}
    for step, want in (("region-summary", want_off), ("region-from-start", want_on)):
        got = summary_calls(os.path.join(out, step + ".err"))
        good = got == want
        ok = ok and good
        print(f"{step}: GPU activities {got} (want {want}) {'yes' if good else 'NO'}")
    got = metric_rows(os.path.join(out, "region-metrics.err"))
    inv = {k: n for (k, m), (n, _) in got.items()}
    good = inv == {"work": 4, "other": 2}
    ok = ok and good
    print(f"region-metrics: profiled launches {inv} {'yes' if good else 'NO'}")
    print("only the profiled region recorded:", "yes" if ok else "NO")


def device_rows(path):
    """nvprof's --csv metric result by device: (kernel, device ordinal, metric) -> invocations."""
    ordinal = lambda d: int(re.search(r"\((\d+)\)\s*$", d).group(1))
    return {(base(r["Kernel"]), ordinal(r["Device"]), r["Metric Name"]): int(r["Invocations"])
            for r in table(path, "Device")}


def twogpu(out):
    """Two GPUs: each device's kernels (a graph's on the second) traced and profiled on their device;
    --devices 1 profiles the second's only."""
    rc = steps(out)
    want = {}
    plain = open(os.path.join(out, "twogpu-plain.out")).read()
    for line in plain.splitlines():
        if line.startswith("launches: "):
            _, name, dev, n = line.split()
            want[(name, int(dev))] = int(n)
    ok = bool(want) and "twogpu: 0 of" in plain
    for step in ("twogpu-summary", "twogpu-metrics", "twogpu-devices1"):
        right = "twogpu: 0 of" in open(os.path.join(out, step + ".out")).read()
        ok = ok and right and rc.get(step) == "0"
        print(f"{step}: exit {rc.get(step)}, program's results {'right' if right else 'WRONG'}")
    calls = summary_calls(os.path.join(out, "twogpu-summary.err"))
    traced = all(calls.get(k) == n for (k, _), n in want.items())
    got = device_rows(os.path.join(out, "twogpu-metrics.err"))
    profiled = all(got.get((k, d, m)) == n for (k, d), n in want.items() for m in ("achieved_occupancy", "gld_efficiency"))
    only = device_rows(os.path.join(out, "twogpu-devices1.err"))
    second = {(k, d): n for (k, d, m), n in only.items()}
    devices1 = second == {kd: n for kd, n in want.items() if kd[1] == 1}
    ok = ok and traced and profiled and devices1
    print(f"summary calls {calls} {'yes' if traced else 'NO'}")
    print(f"metrics by kernel and device {sorted(set((k, d, n) for (k, d, _), n in got.items()))} {'yes' if profiled else 'NO'}")
    print(f"--devices 1: {sorted(second.items())} {'yes' if devices1 else 'NO'}")
    print("both GPUs' kernels traced and profiled on their device:", "yes" if ok else "NO")


def threads(out):
    rc = steps(out)
    plain = open(os.path.join(out, "threads-plain.out")).read()
    want = {}
    for line in plain.splitlines():
        if line.startswith("launches: "):
            _, name, n = line.split()
            want[name] = int(n)
    ok = bool(want) and "threads: 0 of" in plain
    right = "threads: 0 of" in open(os.path.join(out, "threads-metrics.out")).read()
    ok = ok and right and rc.get("threads-metrics") == "0"
    print(f"threads-metrics: exit {rc.get('threads-metrics')}, program's results {'right' if right else 'WRONG'}")
    ok = against_ncu(out, "threads", want, metric_rows(os.path.join(out, "threads-metrics.err"))) and ok
    print("every launch of every thread profiled, values as ncu's:", "yes" if ok else "NO")


def main(out):
    rc = steps(out)
    want = {}
    for line in open(os.path.join(out, "graph-plain.out")):
        if line.startswith("launches: "):
            _, name, n = line.split()
            want[name] = int(n)
    plain_ok = "graph: 0 of" in open(os.path.join(out, "graph-plain.out")).read()
    ok = bool(want) and plain_ok
    print(f"plain run: exit {rc.get('graph-plain')}, results {'right' if plain_ok else 'WRONG'}; launches {want}")
    for step in ("graph-summary", "graph-metrics", "graph-trace-metrics", "graph-kernels", "graph-unprepared"):
        right = "graph: 0 of" in open(os.path.join(out, step + ".out")).read()
        good = rc.get(step) == "0" and right
        ok = ok and good
        print(f"{step}: exit {rc.get(step)}, program's results {'right' if right else 'WRONG'}")
    got = metric_rows(os.path.join(out, "graph-metrics.err"))
    ok = against_ncu(out, "graph", want, got) and ok
    # The graph with kernels on parallel branches: traced, its metrics left out with a notice.
    parallel = {}
    for line in open(os.path.join(out, "graph-plain.out")):
        if line.startswith("parallel: "):
            _, name, n = line.split()
            parallel[name] = int(n)
    err = open(os.path.join(out, "graph-metrics.err")).read()
    said = "parallel branches" in err
    traced = summary_calls(os.path.join(out, "graph-summary.err"))
    left_out = not any(k in parallel for k, _ in got)
    par_ok = bool(parallel) and said and left_out and all(traced.get(k) == n for k, n in parallel.items())
    ok = ok and par_ok
    print(f"parallel branches {parallel}: traced {[(k, traced.get(k)) for k in parallel]}, metrics left out "
          f"{'yes' if left_out else 'NO'}, notice {'given' if said else 'MISSING'} {'yes' if par_ok else 'NO'}")
    only = metric_rows(os.path.join(out, "graph-kernels.err"))
    filt = all(k == "scale2" for k, _ in only) and only.get(("scale2", "achieved_occupancy"), (0,))[0] == want.get("scale2")
    ok = ok and filt
    print(f"--kernels scale2: {sorted(set(k for k, _ in only))} with {only.get(('scale2', 'achieved_occupancy'), (0,))[0]} launches {'yes' if filt else 'NO'}")
    # The GPU trace with metrics: every kernel row carries the metric.
    rows = 0
    with_metric = 0
    for r in table(os.path.join(out, "graph-trace-metrics.err"), "Device"):
        if base(r.get("Kernel", "")) in want:
            rows += 1
            if r.get("achieved_occupancy", "") not in ("", "-"):
                with_metric += 1
    total = sum(want.values())
    trace_ok = rows == total and with_metric == total
    ok = ok and trace_ok
    print(f"GPU trace: {rows} kernel rows of {total}, {with_metric} with achieved_occupancy {'yes' if trace_ok else 'NO'}")
    # Graphs taken as instantiated while the profiler was stopped: run unprofiled, the direct launches keep
    # their metrics (one of each kernel), and the notice says so.
    un = metric_rows(os.path.join(out, "graph-unprepared.err"))
    said = "while the profiler was stopped" in open(os.path.join(out, "graph-unprepared.err")).read()
    direct = {k: n for (k, m), (n, _) in un.items() if m == "achieved_occupancy"}
    un_ok = direct == {"inc": 1, "scale2": 1} and said
    ok = ok and un_ok
    print(f"unprepared graphs: direct launches profiled {direct}, notice {'given' if said else 'MISSING'} {'yes' if un_ok else 'NO'}")
    print("every graph kernel profiled:", "yes" if ok else "NO")


if __name__ == "__main__":
    {"threads": threads, "region": region, "twogpu": twogpu}.get(sys.argv[2] if len(sys.argv) > 2 else "", main)(sys.argv[1])
