#!/usr/bin/env bash
# On a GPU machine: the seed's sum-matrix sweep (17 shapes) with the seed's three metrics and timing,
# once through warpscope (one process, counters through CUPTI) and once as Nsight Compute profiling
# `warpscope run` per shape -- the loop a user of ncu writes -- in the same run, wall clock each.
#   scripts/bench-vs-ncu.sh OUTDIR
# Leaves OUTDIR/ws-bench.json (warpscope's records) and OUTDIR/ncu-bench.csv (every ncu file, concatenated).
set -uo pipefail
out=${1:?usage: scripts/bench-vs-ncu.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
mkdir -p "$out"
shapes=(32x32 32x16 16x32 16x16 32x8 64x1 64x2 64x4 64x8 128x1 128x2 128x4 128x8 256x1 256x2 256x4 256x8)
metrics=achieved_occupancy,gld_throughput,gld_efficiency
ncu_metrics=sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,gpu__time_duration.sum
list=$(IFS=,; echo "${shapes[*]}")

t0=$(date +%s.%N)
"$bin" sweep sum-matrix --block "$list" --metrics "$metrics" -v --format json -o "$out/ws-bench.json" 2>"$out/ws-bench.log"
rc_ws=$?
t1=$(date +%s.%N)
: >"$out/ncu-bench.csv"
for b in "${shapes[@]}"; do
  ncu --clock-control none --metrics "$ncu_metrics" -k regex:sumMatrixOnGPU2D --csv \
    "$bin" run sum-matrix --block "$b" --warmup 0 --iters 1 --quiet >>"$out/ncu-bench.csv" 2>>"$out/ncu-bench.err"
done
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v rc="$rc_ws" -v n="${#shapes[@]}" 'BEGIN {
  ws = b - a; ncu = c - b;
  printf "bench: %d shapes with %s: warpscope %.2f s (exit %d), ncu per shape %.2f s: %.1fx faster\n", n, "achieved_occupancy,gld_throughput,gld_efficiency", ws, rc, ncu, ncu / ws
}' | tee "$out/bench.txt"
