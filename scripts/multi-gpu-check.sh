#!/usr/bin/env bash
# On a host with 2+ GPUs: one sweep run on one GPU, spread over all of them (--devices all), and cut in
# two shards merged back (merge); the three must hold the same configurations with the same outcomes
# (all verified), in the same order. Then a kernel file (conv2d) on one GPU and on all (the same
# outcomes), a kernel file that faults on some parameter values (exit 1, the rest run on) and one that
# hangs at one block shape under --timeout (exit 124), both spread over all GPUs. Logs and results go to
# OUTDIR; a short summary is printed last.
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
# Kernel files: conv2d swept on one GPU and on all; a kernel that faults on some parameter values, and
# one that hangs at one block shape (--timeout), spread over all.
here=$(cd "$(dirname "$0")" && pwd)
conv=(sweep --kernel-file "$here/../examples/kernels/conv2d.toml" --seed 7 --format json -q)
: >"$out/kf-walls.txt"
# Once first, untimed, so that both timed runs find the modules in the cache.
"$bin" "${conv[@]}" -o "$out/kf-warm.json" 2>"$out/kf-warm.log"
for mode in one all; do
  extra=()
  [ "$mode" = all ] && extra=(--devices all)
  k0=$(date +%s.%N)
  "$bin" "${conv[@]}" "${extra[@]}" -o "$out/kf-$mode.json" 2>"$out/kf-$mode.log"
  k1=$(date +%s.%N)
  echo "$mode $(awk "BEGIN{print $k1 - $k0}")" >>"$out/kf-walls.txt"
done
mkdir -p "$out/crash"
printf '%s\n' 'extern "C" __global__ void crash(float *a, int n) {' '  int i = blockIdx.x * blockDim.x + threadIdx.x;' \
  '  if (BAD && i == 7) { ((volatile float *)0x10)[0] = 1.0f; }' '  if (i < n) a[i] = 2.0f * i;' '}' >"$out/crash/crash.cu"
printf 'name = "crash"\nsource = "crash.cu"\nentry = "crash"\nproblem_size = "n"\n[sizes]\nn = 100000\n[tune_params]\nblock_size_x = [64, 128, 256, 512]\nBAD = [0, 1]\n[[args]]\nname = "a"\ntype = "f32"\nlen = "n"\noutput = true\n[[args]]\nname = "n"\ntype = "i32"\nvalue = "n"\n[verify]\nsame_as_first = true\n' >"$out/crash/crash.toml"
timeout -s KILL 120 "$bin" sweep --kernel-file "$out/crash/crash.toml" --devices all --format json -o "$out/kf-crash.json" 2>"$out/kf-crash.log"
echo $? >"$out/kf-crash.rc"
timeout -s KILL 60 "$bin" sweep --kernel-file "$here/../examples/kernels/spin.toml" --block 32,128,64,256,512 --devices all --timeout 2 --format json -o "$out/kf-spin.json" 2>"$out/kf-spin.log"
echo $? >"$out/kf-spin.rc"
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
ok = same_all and same_merged
# A kernel file (examples/kernels/conv2d.toml, 80 configurations) on one GPU and on all of them.
for name in ["kf-one", "kf-all"]:
    try:
        r = load(name)
    except (OSError, ValueError):
        print(f"{name}: no report"); ok = False; continue
    print(f"{name}: {len(r['records'])} records, {sum(1 for x in r['records'] if x['status'] == 'ok')} verified, "
          f"per device { {d: sum(1 for x in r['records'] if x['device'] == d) for d in sorted({x['device'] for x in r['records'] if x['device'] is not None})} }")
try:
    a, b = load("kf-one"), load("kf-all")
    key = lambda x: (x["index"], x["status"], (x.get("verification") or {}).get("mismatches"))
    same = [key(x) for x in a["records"]] == [key(x) for x in b["records"]]
    walls = {l.split()[0]: float(l.split()[1]) for l in open(f"{out}/kf-walls.txt")}
    print(f"kernel file: same configurations and outcomes {same}; one GPU {walls['one']:.2f} s, --devices all {walls['all']:.2f} s: {walls['one'] / walls['all']:.2f}x")
    ok &= same
except (OSError, ValueError, KeyError) as e:
    print(f"kernel file: not compared ({e})"); ok = False
for name, want in [("kf-crash", 1), ("kf-spin", 124)]:
    rc = int(open(f"{out}/{name}.rc").read())
    try:
        r = load(name)
        st = [x["status"] for x in r["records"]]
        print(f"{name}: exit {rc} (want {want}), {len(st)} records: {st.count('ok')} ok, {st.count('failed')} failed, {st.count('invalid')} invalid")
    except (OSError, ValueError):
        print(f"{name}: exit {rc} (want {want}), no report")
    ok &= rc == want
sys.exit(0 if ok else 1)
PY
