#!/bin/bash
# Kernel Tuner's loop_unroll_factor on the GPU: the reduction swept, then its modules' PTX compared.
set -u
OUT=$1; mkdir -p $OUT; H=$(cd "$(dirname "$0")" && pwd); W=/tmp/warpscope
export WARPSCOPE_CACHE_DIR=/tmp/unroll-cache; rm -rf $WARPSCOPE_CACHE_DIR
$W sweep --kernel-file $H/kernels/kt_reduction_unroll.toml --format json -o $OUT/reduction-unroll.json -v > $OUT/reduction-unroll.log 2>&1; echo "sweep rc=$?"
grep -i -E 'warning|unroll' $OUT/reduction-unroll.log | grep -v '^ kt' | head -5
python3 - $OUT <<'PY'
import json, sys
for r in json.load(open(sys.argv[1] + "/reduction-unroll.json"))["records"]:
    v = r.get("verification") or {}
    print(r["params"], r["status"], round((r.get("time_ms") or {}).get("median", 0), 4), v.get("mismatches"), r.get("reason"))
PY
for f in $(find $WARPSCOPE_CACHE_DIR -type f | sort); do echo "$(basename $f | cut -c1-12): $(wc -c < $f) bytes, $(grep -c 'ld.global' $f) ld.global, $(grep -c 'nounroll' $f) nounroll, vector $(grep -c 'v4.f32' $f)"; done
