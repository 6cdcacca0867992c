#!/usr/bin/env python3
"""Summary table of a device-run.sh OUTDIR:  python3 summarize.py OUTDIR

Per run: build, plain rc and wall time, each warpscope mode's rc, what warpscope reported (summary:
distinct kernels / kernel launches summed over every process's "GPU activities"; trace: kernel rows;
metrics: "Kernel:" blocks / invocations summed), what ncu saw (distinct kernel names / launches), and the
host-visible launches expected from the source (EXPECT.md). Then per-run notes: copies and sets in the
summary, error lines, "No kernels were profiled", timeouts.
"""
import csv
import os
import re
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "."

# name -> (binary, modes, has ncu); must match device-run.sh's RUNS / EXTRA_RUNS.
RUNS = [
    ("thrust_histogram", "thrust_histogram", True),
    ("UnifiedMemoryStreams", "UnifiedMemoryStreams", True),
    ("simpleCudaGraphs", "simpleCudaGraphs", True),
    ("reductionMultiBlockCG", "reductionMultiBlockCG", True),
    ("cdpSimplePrint", "cdpSimplePrint", True),
    ("simpleIPC", "simpleIPC", True),
    ("stream_test_v5", "stream_test_v5", True),
    ("simpleHyperQ", "simpleHyperQ", True),
    ("simpleAssert", "simpleAssert", True),
    ("simpleIPC_children", "simpleIPC", False),
    ("cdpSimplePrint_badarg", "cdpSimplePrint", False),
    ("simpleCudaGraphs_baddevice", "simpleCudaGraphs", False),
]

# Host-visible kernel launches the source implies for the arguments used (EXPECT.md): (distinct, launches),
# None where the count is not fixed by the source. UnifiedMemoryStreams: computed from each log.
EXPECTED = {
    "thrust_histogram": None,
    "simpleCudaGraphs": (2, 24),
    "reductionMultiBlockCG": (1, 100),
    "cdpSimplePrint": (1, 1),  # host-launched; +20 device-launched child grids if CDP tracing is reported
    "simpleIPC": (0, 0),  # the parent launches nothing; the child 1 (simpleKernel), seen with children on
    "simpleIPC_children": (1, 1),
    "stream_test_v5": (1, 16),
    "simpleHyperQ": (3, 65),
    "simpleAssert": (1, 1),
    "cdpSimplePrint_badarg": (0, 0),
    "simpleCudaGraphs_baddevice": (0, 0),
}
EXPECTED_RC = {"cdpSimplePrint_badarg": "1", "simpleCudaGraphs_baddevice": "1"}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def rc_of(text):
    if text is None:
        return "-"
    m = re.findall(r"^==fp== rc=(\S+)", text, re.M)
    return m[-1] if m else "?"


def wall_of(text):
    if text is None:
        return ""
    m = re.findall(r"^==fp== rc=\S+ wall_s=([\d.]+)", text, re.M)
    return m[-1] if m else ""


ROW = re.compile(r"^\s*(?:GPU activities:)?\s*([\d.]+)%?\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s\s(.+)$")


def ws_summary(text):
    """GPU activities over every process's summary: (distinct kernels, launches, {copy: calls}, sections, no-kernel lines)."""
    kernels, copies = {}, {}
    sections = text.count("Profiling result:")
    nokern = text.count("No kernels were profiled.")
    in_gpu = False
    for line in text.splitlines():
        if re.match(r"^\s*GPU activities:", line):
            in_gpu = True
        elif re.match(r"^\s*API calls:", line) or line.startswith("==") or not line.strip():
            in_gpu = False
            continue
        if not in_gpu:
            continue
        m = ROW.match(line)
        if not m:
            continue
        name, calls = m.group(7).strip(), int(m.group(3))
        d = copies if name.startswith("[CUDA") else kernels
        d[name] = d.get(name, 0) + calls
    return len(kernels), sum(kernels.values()), copies, sections, nokern, kernels


KROW = re.compile(r"\(\d+ \d+ \d+\)\s+\(\d+ \d+ \d+\)")


def ws_trace(text):
    k = sum(1 for l in text.splitlines() if KROW.search(l))
    c = sum(1 for l in text.splitlines() if "[CUDA " in l and not KROW.search(l))
    return k, c


def ws_metrics(text):
    """("Kernel:" blocks, invocations summed over them)."""
    n, inv, want = 0, 0, False
    for line in text.splitlines():
        if re.match(r"^\s+Kernel: ", line):
            n += 1
            want = True
        elif want:
            m = re.match(r"^\s+(\d+)\s+\S+", line)
            if m:
                inv += int(m.group(1))
                want = False
    return n, inv


def ncu_counts(text):
    """(distinct kernel names, launches, error lines) from ncu --csv output with the program's stdout mixed in."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    header, launches, names = None, set(), set()
    for row in csv.reader(lines):
        if "Kernel Name" in row and "ID" in row:
            header = row
            continue
        if header and len(row) == len(header):
            r = dict(zip(header, row))
            launches.add((r.get("Process ID"), r.get("ID")))
            names.add(r["Kernel Name"])
    return len(names), len(launches)


def errors(text):
    return [l for l in text.splitlines()
            if re.search(r"==ERROR==|==\d+== Error|^error:|panicked|Segmentation|core dumped|Warning: No CUDA application", l)]


def main():
    built = {}
    for _, b, _ in RUNS:
        t = read(os.path.join(OUT, f"build-{b}.log"))
        built[b] = ("-" if not t else "yes" if "==fp== build rc=0" in t
                    else "skipped" if "rc=skipped" in t else "no")
    hdr = ("run", "build", "plain rc (s)", "sum", "trace", "metr", "ncu",
           "ws summary k/launch", "ws trace k", "ws metrics k/inv", "ncu k/launch", "expected k/launch")
    rows, notes = [], []
    for name, b, has_ncu in RUNS:
        logs = {m: read(os.path.join(OUT, f"{name}.{m}.log")) for m in ("plain", "summary", "trace", "metrics")}
        plain = logs["plain"]
        prc = rc_of(plain)
        plain_s = f"{prc} ({float(wall_of(plain) or 0):.2f})" if plain is not None else "-"
        s = t = mm = "-"
        if logs["summary"] is not None:
            nk, nl, copies, sections, nokern, kern = ws_summary(logs["summary"])
            s = f"{nk}/{nl}"
            cp = ", ".join(f"{k} x{v}" for k, v in sorted(copies.items()))
            notes.append(f"{name}: summary: {sections} profiling result section(s); copies/sets: {cp or 'none'}"
                         + (f"; 'No kernels were profiled.' x{nokern}" if nokern else ""))
            for k, v in sorted(kern.items(), key=lambda kv: -kv[1]):
                notes.append(f"    {v:>5}  {k[:160]}")
        if logs["trace"] is not None:
            k, c = ws_trace(logs["trace"])
            t = f"{k}"
            notes.append(f"{name}: trace: {k} kernel rows, {c} copy/set rows")
        if logs["metrics"] is not None:
            n, inv = ws_metrics(logs["metrics"])
            mm = f"{n}/{inv}"
        ncu_rc, nc = "-", "-"
        if has_ncu:
            rct = read(os.path.join(OUT, f"{name}.ncu.rc"))
            if rct:
                ncu_rc = re.match(r"rc=(\S+)", rct).group(1)
            csvt = read(os.path.join(OUT, f"{name}.ncu.csv"))
            if csvt:
                d, l = ncu_counts(csvt)
                nc = f"{d}/{l}"
            errt = read(os.path.join(OUT, f"{name}.ncu.err")) or ""
            e = [l for l in (errt + "\n" + (csvt or "")).splitlines() if "==ERROR==" in l or "==WARNING==" in l]
            if e:
                notes.append(f"{name}: ncu: " + " | ".join(sorted(set(e)))[:400])
        exp = EXPECTED.get(name)
        if name == "UnifiedMemoryStreams":
            # each run draws its own task sizes (srand48(time)): device tasks = "executing on device" lines
            per = {m: (logs[m] or "").count("executing on device") for m in ("plain", "summary", "trace", "metrics")}
            csvt = read(os.path.join(OUT, f"{name}.ncu.csv")) or ""
            per["ncu"] = csvt.count("executing on device")
            ex = "tasks " + "/".join(str(per[m]) for m in ("summary", "trace", "metrics", "ncu"))
            notes.append(f"{name}: device tasks (cublasDgemv calls) per run: {per} (summary/trace/metrics/ncu in the table)")
        else:
            ex = "?" if exp is None else f"{exp[0]}/{exp[1]}"
        if name in EXPECTED_RC:
            ex += f" rc{EXPECTED_RC[name]}"
        rows.append((name, built.get(b, "-"), plain_s, rc_of(logs["summary"]), rc_of(logs["trace"]),
                     rc_of(logs["metrics"]), ncu_rc, s, t, mm, nc, ex))
        for m, txt in logs.items():
            if txt is None:
                continue
            e = errors(txt)
            if e:
                notes.append(f"{name}.{m}: " + " | ".join(e[:4])[:400])
            r = rc_of(txt)
            if r in ("124", "137"):
                notes.append(f"{name}.{m}: TIMED OUT (rc {r})")
    w = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    fmt = " | ".join(f"{{:<{x}}}" for x in w)
    print(fmt.format(*hdr))
    print("-+-".join("-" * x for x in w))
    for r in rows:
        print(fmt.format(*r))
    print()
    print("k/launch: distinct kernel names / kernel launches. ws = warpscope nvprof; metrics: Kernel blocks /"
          " invocations; ncu: distinct 'Kernel Name' / distinct (Process ID, ID). expected: from EXPECT.md.")
    print("UnifiedMemoryStreams: sizes are random per run (seeded by time), so compare each run's launches"
          " with its own device-task count (tasks summary/trace/metrics/ncu).")
    print()
    for n in notes:
        print(n)


if __name__ == "__main__":
    main()
