#!/bin/bash
set -u
OUT=$1; mkdir -p $OUT; H=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt; date -u +%FT%TZ >> $OUT/device.txt
export WARPSCOPE_CACHE_DIR=/tmp/cache-fk5b
for k in multiwarp reduce6; do
  /tmp/warpscope sweep --kernel-file $H/$k.toml --format json -o $OUT/$k.json > $OUT/$k.log 2>&1; echo "$k: rc=$? $(grep -m1 -E 'error|built' $OUT/$k.log | cut -c1-200)"
done
/tmp/warpscope sweep --kernel-file $H/multiwarp.toml --format json -o $OUT/multiwarp-cached.json > $OUT/multiwarp-cached.log 2>&1; echo "multiwarp cached: rc=$? $(grep -m1 -E 'error|built' $OUT/multiwarp-cached.log | cut -c1-200)"
head -3 $(ls $WARPSCOPE_CACHE_DIR/* 2>/dev/null | head -1) 2>/dev/null | cut -c1-150
python3 - $OUT <<'PY'
import json, sys, os
for k in ["multiwarp", "reduce6"]:
    for r in json.load(open(f"{sys.argv[1]}/{k}.json"))["records"]:
        v = r.get("verification") or {}
        print(k, r["block"], r["status"], round((r.get("time_ms") or {}).get("median", 0), 4), v.get("checked"), v.get("mismatches"), (r.get("reason") or "")[:120])
PY
