#!/bin/bash
# The CUDA samples' reduction kernels (device code of reduction_kernel.cu) as kernel files.
set -u
OUT=$1; mkdir -p $OUT; H=$(cd "$(dirname "$0")" && pwd)
gunzip -c $H/ws-before.gz > /tmp/ws-before; chmod +x /tmp/ws-before
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt; date -u +%FT%TZ >> $OUT/device.txt
export WARPSCOPE_CACHE_DIR=/tmp/cache-fk5
/tmp/ws-before sweep --kernel-file $H/reduce6.toml > $OUT/reduce6-before.log 2>&1; echo "reduce6 before: rc=$? $(grep -m1 error $OUT/reduce6-before.log | cut -c1-300)"
for k in reduce6 reduce7 cg multiwarp; do
  /tmp/warpscope sweep --kernel-file $H/$k.toml --format json -o $OUT/$k.json > $OUT/$k.log 2>&1; echo "$k: rc=$? $(grep -m1 -E 'error|built' $OUT/$k.log | cut -c1-200)"
done
python3 - $OUT <<'PY'
import json, sys, os
for k in ["reduce6", "reduce7", "cg", "multiwarp"]:
    p = f"{sys.argv[1]}/{k}.json"
    if not os.path.exists(p): continue
    for r in json.load(open(p))["records"]:
        v = r.get("verification") or {}
        print(k, r["block"], r["status"], round((r.get("time_ms") or {}).get("median", 0), 4), v.get("checked"), v.get("mismatches"), v.get("max_abs_error"), (r.get("reason") or "")[:120])
PY
