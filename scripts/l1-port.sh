#!/usr/bin/env bash
# L1's request port to L2 (docs/MODEL.md section 27): ncu's busy clocks of the port against the rule the
# time model uses (a clock per request, a load's that misses L1 or a store's line, and one per sector a
# store carries) on built-in kernels of every store shape, and rgH (one row per thread) at a row pitch
# of 4096 floats (32 lines on one bank: the data pipe binds) and 4104 (distinct banks: the port binds),
# measured beside the model.
#   scripts/l1-port.sh OUTDIR        (binary: $WARPSCOPE_BIN, default target/release/warpscope; needs ncu)
# Writes OUTDIR/ncu.txt, OUTDIR/rgh-NX.json and OUTDIR/summary.txt (printed).
set -euo pipefail
out=${1:?usage: scripts/l1-port.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
command -v ncu >/dev/null || { echo "error: ncu not found (it is needed for the port's busy clocks)" >&2; exit 1; }
m="l1tex__m_l1tex2xbar_req_cycles_active.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__cycles_active.sum"
: >"$out/ncu.txt"
for spec in "copy copyFloat 256x1" "transpose-naive transposeNaive 32x8" "transpose-naive transposeNaive 16x16" \
  "sum-matrix sumMatrixOnGPU2D 32x8" "gaussian-smooth gaussianSmooth 16x16" "resize resizeBilinear 32x4" \
  "matmul-strided matmulStrided 32x4" "blur-rgh rgH 256x1 --nx 4096" "blur-rgh rgH 256x1 --nx 4104" \
  "blur-rgh rgH 1024x1 --nx 4104"; do
  read -r k e b extra <<<"$spec"
  # shellcheck disable=SC2086
  { echo "== $k $b ${extra:-}"
    ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --metrics "$m" \
      "$bin" sweep "$k" --block "$b" ${extra:-} --iters 3 --warmup 1 -q 2>&1 | grep -E "^\s+(lts__|l1tex__|sm__)"
  } >>"$out/ncu.txt"
done
for nx in 4096 4104; do
  "$bin" sweep blur-rgh --nx "$nx" --ny 4096 --block 32x1,64x1,128x1,256x1,1024x1 --model --format json -o "$out/rgh-$nx.json" >/dev/null
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, sys
out = sys.argv[1]
cur, data = None, {}
for line in open(f"{out}/ncu.txt"):
    if line.startswith("=="):
        cur = line[3:].strip()
        data[cur] = {}
    elif cur and len(line.split()) >= 2:
        name, value = line.split()[0], line.split()[-1]
        try:
            data[cur][name] = float(value.replace(",", ""))
        except ValueError:
            pass
print("port busy clocks: the rule (read requests + write requests + write sectors) over ncu's, and the port's share of SM clocks")
for k, d in data.items():
    busy = d.get("l1tex__m_l1tex2xbar_req_cycles_active.sum")
    rule = sum(d.get(f"lts__t_{x}_srcunit_tex_op_{y}.sum", 0) for x, y in [("requests", "read"), ("requests", "write"), ("sectors", "write")])
    if busy:
        print(f"  {k:36s} rule/ncu {rule / busy:5.2f}   busy {100 * busy / d['sm__cycles_active.sum']:5.1f} %")
for nx in (4096, 4104):
    print(f"rgH at {nx} floats a row: block, measured ms, predicted ms, error")
    for r in json.load(open(f"{out}/rgh-{nx}.json"))["records"]:
        m = {x["name"]: x["value"] for x in r["metrics"]}
        t = r["time_ms"]["median"] if r["time_ms"] else float("nan")
        p = m.get("predicted_time", float("nan"))
        print(f"  {r['block'][0]:5d} {t:8.3f} {p:8.3f} {100 * (p - t) / t:+6.1f} %")
PY
