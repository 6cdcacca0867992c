#!/usr/bin/env bash
# On a GPU machine: Nsight Compute against warpscope on the seed's sum-matrix shapes, same session.
#   scripts/ncu-crosscheck.sh OUTDIR
# 1. kernel time: warpscope's event median against ncu's gpu__time_duration (one ncu process over a sweep);
# 2. metrics: warpscope's CUPTI values against ncu profiling `warpscope run` per shape with the same
#    metrics, through `warpscope compare`.
# ncu runs with --clock-control none: warpscope never locks clocks, so both see the same boost clocks.
set -uo pipefail
out=${1:?usage: scripts/ncu-crosscheck.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
shapes=(32x32 32x16 16x32 16x16 64x1 64x2 64x4 64x8 128x1 128x2 128x4 128x8 256x1 256x2 256x4)
blocks=$(IFS=,; echo "${shapes[*]}")
mkdir -p "$out"

# 1. Timing.
"$bin" sweep sum-matrix --block "$blocks" --iters 20 --format json -o "$out/ws-time.json" >"$out/ws-time.log" 2>&1
ncu --clock-control none --metrics gpu__time_duration.sum -k regex:sumMatrixOnGPU2D --csv \
  "$bin" sweep sum-matrix --block "$blocks" --warmup 1 --iters 10 --quiet --format json -o "$out/ws-under-ncu.json" \
  >"$out/ncu-time.csv" 2>"$out/ncu-time.err"
"$bin" compare "$out/ws-time.json" "$out/ncu-time.csv" --format json >"$out/compare-time.json" 2>"$out/compare-time.err"

# 2. Metrics: warpscope's counters, then ncu on `warpscope run` per shape.
metrics=achieved_occupancy,gld_efficiency,gld_throughput,gld_transactions,dram_read_throughput,dram_write_throughput,duration
ncu_metrics=sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,gpu__time_duration.sum
"$bin" sweep sum-matrix --block "$blocks" --metrics "$metrics" --format json -o "$out/ws-metrics.json" >"$out/ws-metrics.log" 2>&1
: >"$out/ncu-metrics.csv"
for b in "${shapes[@]}"; do
  ncu --clock-control none --metrics "$ncu_metrics" -k regex:sumMatrixOnGPU2D --csv \
    "$bin" run sum-matrix --block "$b" --warmup 0 --iters 1 --quiet >>"$out/ncu-metrics.csv" 2>>"$out/ncu-metrics.err"
done
"$bin" compare "$out/ws-metrics.json" "$out/ncu-metrics.csv" >"$out/compare-metrics.txt" 2>&1
"$bin" compare "$out/ws-metrics.json" "$out/ncu-metrics.csv" --format json >"$out/compare-metrics.json" 2>/dev/null

# 3. Optional: the SKE image kernels' counters (NCU_SKE=1), for the occupancy model.
if [ "${NCU_SKE:-0}" = 1 ]; then
  for k in resize rgb-to-gray gaussian-smooth; do
    ncu --clock-control none --metrics sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum --csv \
      "$bin" sweep "$k" --bx 32 --by 1..16 --warmup 1 --iters 1 --quiet --format json -o "$out/ws-under-ncu-$k.json" \
      >"$out/ncu-$k.csv" 2>"$out/ncu-$k.err"
  done
fi

python3 - "$out" <<'PY' | tee "$out/ncu-compare.txt"
import json, sys
out = sys.argv[1]
def summary(path, title):
    rows = json.load(open(path))["rows"]
    print(title)
    by = {}
    for r in rows:
        by.setdefault((r["metric"], r["unit"], r["ours_source"]), []).append(r)
    for (m, unit, src), rs in sorted(by.items()):
        worst = max(rs, key=lambda r: abs(r["delta"]))
        kind = "points" if unit == "%" else "%"
        print(f"  {m:<22} ({src:<8}) {len(rs):>2} shapes: worst {worst['delta']:+.3f} {kind} at {tuple(worst['block'][:2])}")
summary(f"{out}/compare-time.json", "timing: warpscope events vs ncu gpu__time_duration (--clock-control none)")
summary(f"{out}/compare-metrics.json", "metrics: warpscope CUPTI vs ncu, per shape (--clock-control none)")
PY
