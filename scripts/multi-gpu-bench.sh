#!/usr/bin/env bash
# Issue 15's figure, on a host with 2+ GPUs: a 64-shape sum-matrix sweep with counters on one GPU and
# spread over all of them (--devices all), alternated ROUNDS times in one run (the machines are noisy, so
# the ratio is taken within the run); the records must be the same (configurations, outcomes, elements
# checked; counter values and medians within their noise). Logs and results go to OUTDIR; a short
# summary is printed last.
#   scripts/multi-gpu-bench.sh OUTDIR [ROUNDS]   (binary: $WARPSCOPE_BIN, default target/release/warpscope)
set -uo pipefail
out=${1:?usage: scripts/multi-gpu-bench.sh OUTDIR [ROUNDS]}
rounds=${2:-2}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
mkdir -p "$out"
# 8 x 8 = 64 shapes, every one valid (at most 128 x 8 = 1024 threads).
sweep=(sweep sum-matrix --bx 8,16,24,32,48,64,96,128 --by 1,2,3,4,5,6,7,8 --seed 7
       --metrics achieved_occupancy,gld_throughput,gld_efficiency --format json -v)
: >"$out/times.txt"
for r in $(seq 1 "$rounds"); do
  for mode in one all; do
    extra=()
    [ "$mode" = all ] && extra=(--devices all)
    t0=$(date +%s.%N)
    "$bin" "${sweep[@]}" "${extra[@]}" -o "$out/$mode-$r.json" 2>"$out/$mode-$r.log"
    rc=$?
    t1=$(date +%s.%N)
    echo "$mode $r $rc $(awk "BEGIN{print $t1 - $t0}")" >>"$out/times.txt"
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
times = {}
for line in open(f"{out}/times.txt"):
    mode, r, rc, secs = line.split()
    times[(mode, int(r))] = (int(rc), float(secs))
def load(name):
    return json.load(open(f"{out}/{name}.json"))
def outcome(rep):
    return [(x["index"], tuple(x["block"]), x["status"], (x["verification"] or {}).get("mismatches"),
             (x["verification"] or {}).get("checked")) for x in rep["records"]]
one1, all1 = load("one-1"), load("all-1")
print(f"devices: {[d['name'] + ' #' + str(d['ordinal']) for d in all1.get('devices', [])]}")
ok = True
for r in range(1, rounds + 1):
    (rc1, s1), (rc2, s2) = times[("one", r)], times[("all", r)]
    print(f"round {r}: one GPU {s1:.2f} s (exit {rc1}), --devices all {s2:.2f} s (exit {rc2}): {s1 / s2:.2f}x")
    ok &= rc1 == 0 and rc2 == 0
one_all = [times[("one", r)][1] for r in range(1, rounds + 1)]
all_all = [times[("all", r)][1] for r in range(1, rounds + 1)]
print(f"median: {statistics.median(one_all):.2f} s / {statistics.median(all_all):.2f} s = "
      f"{statistics.median(one_all) / statistics.median(all_all):.2f}x")
for r in range(1, rounds + 1):
    a, b = load(f"one-{r}"), load(f"all-{r}")
    same = outcome(a) == outcome(b) == outcome(one1)
    ok &= same
    per_dev = {}
    for x in b["records"]:
        per_dev[x["device"]] = per_dev.get(x["device"], 0) + 1
    worst_t = max(abs(y["time_ms"]["median"] / x["time_ms"]["median"] - 1)
                  for x, y in zip(a["records"], b["records"]) if x["time_ms"] and y["time_ms"]) * 100
    worst_m = {}
    for x, y in zip(a["records"], b["records"]):
        theirs = {(m["name"], m["source"]): m["value"] for m in y.get("metrics") or []}
        for m in x.get("metrics") or []:
            w = theirs.get((m["name"], m["source"]))
            if m["source"] != "estimated" and m["value"] and w is not None:
                worst_m[m["name"]] = max(worst_m.get(m["name"], 0.0), abs(w / m["value"] - 1) * 100)
    okc = sum(1 for x in b["records"] if x["status"] == "ok")
    wanted = {"achieved_occupancy", "gld_throughput", "gld_efficiency"}
    def counted(rep):
        return sum(1 for x in rep["records"]
                   if wanted <= {m["name"] for m in x.get("metrics") or [] if m["source"] == "measured"})
    full = (counted(a), counted(b))
    ok &= full == (len(a["records"]), len(b["records"]))
    print(f"round {r}: same configurations and outcomes {same}; {okc} verified; records per device {per_dev}; "
          f"all three counters measured: one GPU {full[0]}, --devices all {full[1]} of 64; "
          f"worst median difference {worst_t:.1f}%; worst counter difference "
          + ", ".join(f"{k} {v:.2f}%" for k, v in sorted(worst_m.items())))
sys.exit(0 if ok else 1)
PY
