#!/bin/bash
# GPU checks of this session's kernel-file changes; OUT=$1
set -u
OUT=$1; mkdir -p $OUT
W=/tmp/warpscope; H=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
date -u +%FT%TZ >> $OUT/device.txt
run() { local n=$1; shift; echo "\$ $*" > $OUT/$n.log; timeout 150 "$@" >> $OUT/$n.log 2>&1; echo "rc=$?" >> $OUT/$n.log; echo "$n: $(tail -1 $OUT/$n.log)"; }
run saxpy4 $W sweep --kernel-file examples/kernels/saxpy4.toml --format json -o $OUT/saxpy4.json
run pnpoly-vec $W sweep --kernel-file $H/kernels/kt_pnpoly_vec.toml --block 256 --define tile_size=1,4 --define between_method=0,1 --format json -o $OUT/pnpoly-vec.json
run matmul-defines $W sweep --kernel-file $H/kernels/kt_matmul_defines.toml --bx 32 --by 4,8 --define tile_size_x=2,4 --define tile_size_y=4,8 --format json -o $OUT/matmul-defines.json
run matmul-2048 $W sweep --kernel-file $H/kernels/kt_matmul_defines.toml --size n=2048 --bx 32 --by 4
# unroll 0 vs no pragma vs 1 (nvcc, the same front end as NVRTC)
for v in 0 1 4; do nvcc -arch=sm_90 -ptx -DF=$v $H/unroll0.cu -o $OUT/unroll$v.ptx > $OUT/unroll$v.nvcc.txt 2>&1; echo "unroll $v: rc=$? $(wc -l < $OUT/unroll$v.ptx) lines, $(grep -c 'ld.global' $OUT/unroll$v.ptx) loads; $(head -c 300 $OUT/unroll$v.nvcc.txt)"; done
nvcc -arch=sm_90 -ptx -DNOPRAGMA $H/unroll0.cu -o $OUT/unrollnone.ptx > $OUT/unrollnone.nvcc.txt 2>&1; echo "no pragma: rc=$? $(wc -l < $OUT/unrollnone.ptx) lines, $(grep -c 'ld.global' $OUT/unrollnone.ptx) loads"
cmp -s $OUT/unroll0.ptx $OUT/unrollnone.ptx && echo "unroll 0 == no pragma" || echo "unroll 0 != no pragma"
python3 - $OUT <<'PY'
import json, sys, os
out = sys.argv[1]
for n in ["saxpy4", "pnpoly-vec", "matmul-defines"]:
    p = os.path.join(out, n + ".json")
    if not os.path.exists(p): print(n, "no json"); continue
    rs = json.load(open(p))["records"]
    st = {}
    for r in rs: st[r["status"]] = st.get(r["status"], 0) + 1
    print(n, st)
    for r in rs:
        t = (r.get("time_ms") or {}).get("median")
        v = r.get("verification") or {}
        print("  ", r["block"], r.get("params"), r["status"], t, v.get("checked"), v.get("mismatches"), r.get("reason"))
PY
