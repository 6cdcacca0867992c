#!/usr/bin/env bash
# On a host with 2+ GPUs: one sweep run on one GPU, spread over all of them (--devices all), and cut in
# two shards merged back (merge); the three must hold the same configurations with the same outcomes
# (all verified), in the same order. Logs and results go to OUTDIR; a short summary is printed last.
#   scripts/multi-gpu-check.sh OUTDIR        (binary: $WARPSCOPE_BIN, default target/release/warpscope)
set -uo pipefail
out=${1:?usage: scripts/multi-gpu-check.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
mkdir -p "$out"
sweep=(sweep sum-matrix --bx 32,64,128,256 --by 1,2,4,8 --seed 7 --format json -q)
t0=$(date +%s.%N)
"$bin" "${sweep[@]}" -o "$out/one.json" 2>"$out/one.log"
t1=$(date +%s.%N)
"$bin" "${sweep[@]}" --devices all -o "$out/all.json" 2>"$out/all.log"
t2=$(date +%s.%N)
"$bin" "${sweep[@]}" --shard 1/2 --device 0 -o "$out/shard1.json" 2>"$out/shard1.log"
"$bin" "${sweep[@]}" --shard 2/2 --device 1 -o "$out/shard2.json" 2>"$out/shard2.log"
"$bin" merge "$out/shard2.json" "$out/shard1.json" --format json -o "$out/merged.json" 2>"$out/merge.log"
python3 - "$out" "$t0" "$t1" "$t2" <<'PY'
import json, sys
out, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:])
def load(name):
    return json.load(open(f"{out}/{name}.json"))
def outcome(r):
    return [(x["index"], tuple(x["block"]), x["status"], (x["verification"] or {}).get("mismatches"),
             (x["verification"] or {}).get("checked")) for x in r["records"]]
one, every, merged = load("one"), load("all"), load("merged")
print(f"devices: {[d['name'] + ' #' + str(d['ordinal']) for d in every.get('devices', [])]}")
print(f"one GPU: {len(one['records'])} records in {t1 - t0:.2f} s; --devices all: {len(every['records'])} in {t2 - t1:.2f} s")
print(f"records per device (--devices all): { {d: sum(1 for x in every['records'] if x['device'] == d) for d in sorted({x['device'] for x in every['records'] if x['device'] is not None})} }")
ok = lambda r: sum(1 for x in r["records"] if x["status"] == "ok")
print(f"verified: one {ok(one)}, all {ok(every)}, merged shards {ok(merged)}; invalid: {sum(1 for x in one['records'] if x['status'] == 'invalid')}")
same_all, same_merged = outcome(one) == outcome(every), outcome(one) == outcome(merged)
print(f"same configurations and outcomes: --devices all {same_all}, shards merged {same_merged}")
for name, r in [("all", every), ("merged", merged)]:
    pairs = [(a["time_ms"]["median"], b["time_ms"]["median"]) for a, b in zip(one["records"], r["records"]) if a["time_ms"] and b["time_ms"]]
    worst = max(abs(b / a - 1) for a, b in pairs) * 100
    print(f"  {name}: worst time difference to the one-GPU run {worst:.1f}% over {len(pairs)} configs")
sys.exit(0 if same_all and same_merged else 1)
PY
