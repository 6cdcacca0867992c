#!/usr/bin/env bash
# On a GPU machine: runs Nsight Compute on warpscope's seed sweeps and compares its kernel durations
# (gpu__time_duration, --clock-control none: warpscope never touches clocks either) and metrics with
# warpscope's own, measured in the same session.
#   scripts/ncu-crosscheck.sh OUTDIR
set -uo pipefail
out=${1:?usage: scripts/ncu-crosscheck.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
blocks=32x32,32x16,16x32,16x16,64x1,64x2,64x4,64x8,128x1,128x2,128x4,128x8,256x1,256x2,256x4
mkdir -p "$out"

# 1. warpscope alone, then the same sweep under ncu timing every launch (1 pass, no replay cost).
"$bin" sweep sum-matrix --block "$blocks" --iters 20 --format json -o "$out/ws-time.json" >"$out/ws-time.log" 2>&1
ncu --clock-control none --metrics gpu__time_duration.sum -k regex:sumMatrixOnGPU2D --csv \
  "$bin" sweep sum-matrix --block "$blocks" --warmup 1 --iters 10 --quiet --format json -o "$out/ws-under-ncu.json" \
  >"$out/ncu-time.csv" 2>"$out/ncu-time.err"

# 2. The seed's metrics and their neighbours, one launch per config (warmup 1, iters 1: the verified launch
#    and one timed launch are both profiled).
metrics=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
ncu --clock-control none --metrics "$metrics" -k regex:sumMatrixOnGPU2D --csv \
  "$bin" sweep sum-matrix --block "$blocks" --warmup 1 --iters 1 --quiet --format json -o "$out/ws-under-ncu-metrics.json" \
  >"$out/ncu-metrics.csv" 2>"$out/ncu-metrics.err"
ncu --clock-control none --metrics "$metrics" -k regex:sumMatrixOnGPU2D --csv --page raw \
  "$bin" run sum-matrix --block 32x16 --warmup 1 --iters 1 >"$out/ncu-raw.csv" 2>"$out/ncu-raw.err"

# 3. The same counters on the SKE image kernels (32 x k blocks), to check the occupancy model beyond sum-matrix.
for k in resize rgb-to-gray gaussian-smooth; do
  ncu --clock-control none --metrics "$metrics" --csv \
    "$bin" sweep "$k" --bx 32 --by 1..16 --warmup 1 --iters 1 --quiet --format json -o "$out/ws-under-ncu-$k.json" \
    >"$out/ncu-$k.csv" 2>"$out/ncu-$k.err"
done

python3 - "$out" <<'PY' | tee "$out/ncu-compare.txt"
import csv, io, json, statistics, sys
out = sys.argv[1]
def rows(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))
dur = {}
for r in rows(f"{out}/ncu-time.csv"):
    if r.get("Metric Name") == "gpu__time_duration.sum":
        v = float(r["Metric Value"].replace(",", ""))
        unit = r.get("Metric Unit", "")
        ms = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}[unit] * v
        dur.setdefault(r["Block Size"], []).append(ms)
ws = json.load(open(f"{out}/ws-time.json"))
print("timing: warpscope median (alone) vs ncu gpu__time_duration median (--clock-control none)")
worst = 0.0
for rec in ws["records"]:
    if rec["status"] != "ok":
        continue
    key = "(" + ", ".join(str(v) for v in rec["block"]) + ")"
    if key not in dur:
        print(f"  {key}: no ncu rows"); continue
    n = statistics.median(dur[key]); w = rec["time_ms"]["median"]
    d = 100 * (w - n) / n; worst = max(worst, abs(d))
    print(f"  {key:>14} warpscope {w:8.4f} ms  ncu {n:8.4f} ms  ({len(dur[key])} launches)  {d:+6.2f}%")
print(f"  worst |delta| {worst:.2f}%")
PY
