#!/bin/bash
# The toolkit's headers without -I: before (ws-before, the session's start) and after.
set -u
OUT=$1; mkdir -p $OUT; H=$(cd "$(dirname "$0")" && pwd)
gunzip -c $H/ws-before.gz > /tmp/ws-before; chmod +x /tmp/ws-before
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt; date -u +%FT%TZ >> $OUT/device.txt
for b in before after; do
  W=/tmp/warpscope; [ $b = before ] && W=/tmp/ws-before
  export WARPSCOPE_CACHE_DIR=/tmp/cache-$b; rm -rf $WARPSCOPE_CACHE_DIR
  $W sweep --kernel-file examples/kernels/cg_block_sum.toml --format json -o $OUT/cg-$b.json > $OUT/cg-$b.log 2>&1; echo "cg_block_sum $b: rc=$? $(grep -m1 -E 'error|built' $OUT/cg-$b.log | cut -c1-250)"
  $W kernels --kernel-file $H/cub_device.toml > $OUT/cub-$b.log 2>&1; echo "cub device-wide $b: rc=$? $(grep -m1 -E 'error|checked' $OUT/cub-$b.log | cut -c1-250)"
done
python3 - $OUT <<'PY'
import json, sys
rs = json.load(open(sys.argv[1] + "/cg-after.json"))["records"]
for r in rs:
    v = r.get("verification") or {}
    print(r["block"], r["status"], round((r.get("time_ms") or {}).get("median", 0), 4), v.get("checked"), v.get("mismatches"), v.get("max_abs_error"), r.get("reason"))
PY
