#!/bin/bash
# Kernel Tuner's convolution and stencil examples as kernel files ([defines] for their fixed sizes).
set -u
OUT=$1; mkdir -p $OUT; H=$(cd "$(dirname "$0")" && pwd); W=/tmp/warpscope
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt; date -u +%FT%TZ >> $OUT/device.txt
$W sweep --kernel-file $H/kt_convolution.toml --bx 16,32,64 --by 4,8 --define tile_size_x=1,2 --define tile_size_y=1,2 --format json -o $OUT/convolution.json > $OUT/convolution.log 2>&1; echo "convolution rc=$?"
$W sweep --kernel-file $H/kt_stencil.toml --bx 32,128,256 --by 1,4 --format json -o $OUT/stencil.json > $OUT/stencil.log 2>&1; echo "stencil rc=$?"
$W sweep --kernel-file $H/kt_stencil.toml --size nx=2048 --bx 32 > $OUT/stencil-2048.log 2>&1; echo "stencil n=2048 rc=$? $(tail -1 $OUT/stencil-2048.log)"
python3 - $OUT <<'PY'
import json, sys
for n in ["convolution", "stencil"]:
    rs = json.load(open(f"{sys.argv[1]}/{n}.json"))["records"]
    st = {}
    for r in rs: st[r["status"]] = st.get(r["status"], 0) + 1
    print(n, st)
    for r in rs:
        v = r.get("verification") or {}
        print("  ", r["block"], r.get("params"), r["status"], round((r.get("time_ms") or {}).get("median", 0), 4), v.get("checked"), v.get("mismatches"), (r.get("reason") or "")[:100])
PY
