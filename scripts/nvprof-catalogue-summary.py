#!/usr/bin/env python3
"""nvprof-check.sh's catalogue step, summed up: `warpscope nvprof --metrics all` against ncu collecting
every counter of the catalogue on the same programs (compare rows, cat-*-cmp.json), which metrics
warpscope left without a value, and the counts worked out by hand in tests/programs/metricmix.cu and for
sumMatrix 32 16 (16384 x 16384 floats: one FADD, two 4-byte loads and one store per element).

    scripts/nvprof-catalogue-summary.py OUTDIR
"""
import json
import math
import os
import sys

out = sys.argv[1]

# Metrics whose value depends on the run's timing or cache state, not on the work: compared, but their
# misses are listed apart (two runs of one tool differ as much).
TIMING = ("throughput", "utilization", "efficiency", "stall_", "ipc", "eligible", "hit_rate", "issue_slot",
          "sm_efficiency", "achieved_occupancy", "duration", "dram_", "l2_", "sysmem_")


def load(name):
    path = os.path.join(out, name)
    if not os.path.exists(path) or not os.path.getsize(path):
        return None
    return json.load(open(path))


def within(row):
    d, pct = row.get("delta"), row.get("rel_delta_pct")
    if d is None:
        return None
    return abs(d) <= 1.0 if row.get("unit") == "%" else abs(d) < 1e-9 or (pct is not None and abs(pct) <= 3.0)


def measured(report):
    """{kernel: {metric: value}} of a warpscope report, NaN where a metric came back without a value."""
    got = {}
    for r in report.get("records", []):
        k = got.setdefault(r["kernel"], {})
        for m in r.get("metrics", []):
            v = m.get("value")
            k[m["name"]] = float("nan") if v is None else v
    return got


N = 1 << 20
WARPS = N // 32
SUM = 16384 * 16384
HAND = {
    "sumMatrix": {
        "sumMatrixOnGPU2D": [
            ("flop_count_sp_add", SUM, "one FADD an element"),
            ("flop_count_sp", SUM, "no FMUL or FFMA"),
            ("inst_executed_global_loads", 2 * SUM // 32, "two loads a warp"),
            ("inst_executed_global_stores", SUM // 32, "one store a warp"),
            ("global_load_requests", 2 * SUM // 32, "one request a load instruction"),
            ("gld_transactions", 2 * SUM * 4 // 32, "4 sectors a 128-byte request"),
            ("unique_warps_launched", SUM // 32, "every warp full"),
        ]
    },
    "metricmix": {
        "fmaChain": [
            ("flop_count_sp_fma", 64 * N, "64 FFMAs a thread"),
            ("flop_count_dp_fma", 64 * N, "64 DFMAs a thread"),
            ("flop_count_sp", 128 * N, "FFMA counts 2"),
            ("flop_count_dp", 128 * N, "DFMA counts 2"),
            ("inst_executed_global_loads", 2 * WARPS, "a float and a double load a warp"),
            ("inst_executed_global_stores", 2 * WARPS, "a float and a double store a warp"),
        ],
        "atomics": [
            ("inst_executed_global_atomics", WARPS, "one ATOM a warp (old value used)"),
            ("inst_executed_global_reductions", WARPS, "one RED a warp (old value unused)"),
        ],
        "special": [
            ("unique_warps_launched", WARPS, "every warp full"),
        ],
    },
}

for prog in ["sumMatrix", "metricmix", "libs"]:
    ws = load(f"cat-{prog}-ws.json")
    cmp = load(f"cat-{prog}-cmp.json")
    if ws is None:
        print(f"{prog}: no warpscope report")
        continue
    got = measured(ws)
    n_metrics = max((len(v) for v in got.values()), default=0)
    empty = sorted({m for k in got.values() for m, v in k.items() if isinstance(v, float) and math.isnan(v)})
    print(f"{prog}: {len(got)} kernels, {n_metrics} metrics each; without a value: {', '.join(empty) or 'none'}")
    if cmp is not None:
        rows = cmp.get("rows", [])
        ok, work_off, timing_off = 0, [], []
        for r in rows:
            w = within(r)
            if w is None:
                continue
            ok += w
            if not w:
                line = f"{r['kernel'][:24]} {r['metric']} ours {r.get('ours'):.6g} ncu {r.get('theirs'):.6g}"
                (timing_off if any(t in r["metric"] for t in TIMING) else work_off).append(line)
        total = ok + len(work_off) + len(timing_off)
        print(f"  against ncu: {ok} of {total} kernel metrics within 1 point / 3 %")
        for line in work_off:
            print(f"    off (work count): {line}")
        for line in timing_off:
            print(f"    off (timing or cache state): {line}")
        if cmp.get("unmatched"):
            print(f"  unmatched: {len(cmp['unmatched'])}")
    for kernel, checks in HAND.get(prog, {}).items():
        values = next((v for k, v in got.items() if k.startswith(kernel)), None)
        if values is None:
            print(f"  {kernel}: not profiled")
            continue
        for metric, want, why in checks:
            v = values.get(metric)
            verdict = "missing" if v is None else ("ok" if v == want else f"OFF (got {v:.0f})")
            print(f"  {kernel} {metric} = {want} ({why}): {verdict}")
    for kernel, values in got.items():
        if kernel.startswith("sharedConflict"):
            print(f"  sharedConflict shared_load_transactions_per_request {values.get('shared_load_transactions_per_request')}"
                  f" (above 1: the 32x32 tile's columns), shared_store_transactions_per_request"
                  f" {values.get('shared_store_transactions_per_request')} (at most 1: rows)")
        if kernel.startswith("localArray"):
            print(f"  localArray local_load_transactions {values.get('local_load_transactions')},"
                  f" local_store_transactions {values.get('local_store_transactions')} (above 0: the array is in local memory)")
        if kernel.startswith("special"):
            print(f"  special special_fu_utilization {values.get('special_fu_utilization')} (above 0: MUFU)")
