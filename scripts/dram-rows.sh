#!/usr/bin/env bash
# Does a block that spreads its accesses over more matrix rows move DRAM's bytes slower? (docs/MODEL.md
# section 17.) Sweeps the kernels of scripts/dram-rows/ (read only, copy, write only; one float per
# thread of 16384 x 16384) and the built-in sum-matrix over block shapes of 1024, 512 and 256 threads
# from one row (1024x1) to 64 rows (16x64), and prints each shape's median time over the one-row shape's
# of its size. Run on the GPU machine:
#   WARPSCOPE_BIN=/path/to/warpscope scripts/dram-rows.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ws=${WARPSCOPE_BIN:-target/release/warpscope}
out=${1:-dram-rows-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
blocks=1024x1,512x2,256x4,128x8,64x16,32x32,16x64,512x1,256x2,128x4,64x8,32x16,16x32,256x1,128x2,64x4,32x8,16x16
for k in read copy write; do
  "$ws" sweep --kernel-file "scripts/dram-rows/$k.toml" --block "$blocks" --format json -o "$out/$k.json" -q ||
    echo "$k: sweep exited $?"
done
"$ws" sweep sum-matrix --block "$blocks" --format json -o "$out/sum.json" -q || echo "sum-matrix: sweep exited $?"
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
for k in ["read", "copy", "write", "sum"]:
    path = os.path.join(out, k + ".json")
    if not os.path.exists(path):
        continue
    recs = [r for r in json.load(open(path))["records"] if r.get("time_ms")]
    by = {}
    for r in recs:
        bx, by_ = r["block"][0], r["block"][1]
        by.setdefault(bx * by_, []).append((by_, bx, r["time_ms"]["median"], r["status"]))
    for threads, rows in sorted(by.items(), reverse=True):
        rows.sort()
        base = rows[0][2]
        cells = " ".join("%dx%d %.3f" % (bx, h, t / base) + ("" if s == "ok" else " (" + s + ")") for h, bx, t, s in rows)
        print("%-6s %4d threads: one row %.4f ms; over it: %s" % (k, threads, base, cells))
PY
