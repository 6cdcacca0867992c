#!/usr/bin/env bash
# On a GPU machine: the seed's sum-matrix sweep (the shapes of scripts/bench-vs-ncu.sh, 20 timed launches
# each, every output verified) with and without the seed's three counters, by an earlier warpscope binary
# ("before") and this one ("after"), alternating, REPEATS times, in one run; then what the after binary's
# time is made of:
#   - context creation: the wall time of `warpscope devices` (opens the device: driver, context, NVML);
#   - GPU busy time: the sum of every GPU activity (kernels, copies, sets) of the sweep, traced by
#     `warpscope nvprof --print-gpu-summary` (CUPTI activity records; the counters' replay passes are
#     kernels too);
#   - the counters measured one configuration at a time (`--timeout`, which keeps each configuration
#     alone) against the default windows;
# and whether anything was lost: `compare --baseline` (times) and `compare` (counter values) of the two
# binaries' records, and a check that both have the same configurations, outcomes and elements verified.
#   scripts/bench-speed.sh OUTDIR BEFORE_BIN [REPEATS]      (after: $WARPSCOPE_BIN, default target/release/warpscope)
# Leaves OUTDIR/bench.txt (one line per command: what, wall seconds, exit code) and every log and record.
set -uo pipefail
out=${1:?usage: scripts/bench-speed.sh OUTDIR BEFORE_BIN [REPEATS]}
before=${2:?usage: scripts/bench-speed.sh OUTDIR BEFORE_BIN [REPEATS]}
reps=${3:-2}
after=${WARPSCOPE_BIN:-target/release/warpscope}
mkdir -p "$out"
shapes=32x32,32x16,16x32,16x16,32x8,64x1,64x2,64x4,64x8,128x1,128x2,128x4,128x8,256x1,256x2,256x4,256x8
metrics=achieved_occupancy,gld_throughput,gld_efficiency
seed=2026

# timed NAME CMD...: runs CMD (stderr to OUTDIR/NAME.log), appends "NAME wall_s exit" to bench.txt.
timed() {
  local name=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  "$@" 2>"$out/$name.log"
  rc=$?
  t1=$(date +%s.%N)
  awk -v n="$name" -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { printf "%-24s %8.3f s  exit %d\n", n, b - a, rc }' |
    tee -a "$out/bench.txt"
}

sweep() { # BIN NAME [ARGS...]
  local bin=$1 name=$2
  shift 2
  timed "$name" "$bin" sweep sum-matrix --block "$shapes" --seed "$seed" -v --format json -o "$out/$name.json" "$@"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)" |
  tee "$out/bench.txt"
timed devices "$after" devices
for r in $(seq 1 "$reps"); do
  for which in before after; do
    bin=$before
    [ "$which" = after ] && bin=$after
    sweep "$bin" "$which-counters-$r" --metrics "$metrics"
    sweep "$bin" "$which-plain-$r"
  done
done
sweep "$after" after-counters-one-at-a-time --metrics "$metrics" --timeout 600

for mode in plain counters; do
  extra=()
  [ "$mode" = counters ] && extra=(--metrics "$metrics")
  timed "busy-$mode" "$after" nvprof --print-gpu-summary --csv -u ms --log-file "$out/busy-$mode.csv" \
    "$after" sweep sum-matrix --block "$shapes" --seed "$seed" -q --format json -o "$out/busy-$mode.json" "${extra[@]}"
done

"$after" compare --baseline "$out/before-counters-1.json" "$out/after-counters-1.json" >"$out/compare-times.txt" 2>&1
"$after" compare "$out/before-counters-1.json" "$out/after-counters-1.json" >"$out/compare-counters.txt" 2>&1
python3 - "$out" <<'EOF' | tee -a "$out/bench.txt"
import json, sys
out = sys.argv[1]
def load(n):
    return json.load(open(f"{out}/{n}.json"))["records"]
def key(r):
    v = r.get("verification") or {}
    return (tuple(r["block"]), r["status"], v.get("checked"), v.get("mismatches"))
b, a = load("before-counters-1"), load("after-counters-1")
print("same configurations, outcomes and elements verified:", [key(r) for r in b] == [key(r) for r in a])
worst = {}
for rb, ra in zip(b, a):
    mb = {m["name"]: m["value"] for m in rb["metrics"] if m["source"] == "measured"}
    ma = {m["name"]: m["value"] for m in ra["metrics"] if m["source"] == "measured"}
    for name in mb.keys() & ma.keys():
        if mb[name]:
            d = 100 * (ma[name] - mb[name]) / mb[name]
            if abs(d) > abs(worst.get(name, 0)):
                worst[name] = d
print("largest counter change after vs before, %:", {k: round(v, 2) for k, v in sorted(worst.items())})
busy = {}
for mode in ("plain", "counters"):
    total = 0.0
    for line in open(f"{out}/busy-{mode}.csv"):
        f = next(iter(__import__("csv").reader([line])), [])
        if len(f) > 3 and f[0] == "GPU activities":
            total += float(f[2])
    busy[mode] = total / 1e3
print("GPU busy (s):", {k: round(v, 3) for k, v in busy.items()})
EOF
