#!/usr/bin/env bash
# How many L1 data-pipe wavefronts does one warp-wide global load take, by the addresses its lanes read?
# (docs/MODEL.md section 19.) Builds scripts/l1-wavefronts.cu, runs it under ncu over 383 patterns
# (strides of 0 to 1024 words at seven offsets; 2, 4 and 8 rows of lanes at six pitches), for a load
# and for a store, and writes summary.csv: each pattern's wavefronts per request, less the coalesced
# other access's (the load's broadcast and the store's unit stride taken as one pass). Run on the GPU machine:
#   scripts/l1-wavefronts.sh [OUTDIR]
set -euo pipefail
probe=l1-wavefronts
source "$(dirname "$0")/probe-build.sh"
: >"$out/configs.txt"
for s in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 20 24 31 32 33 40 48 64 96 128 1024; do
  for off in 0 1 3 5 8 16 31; do echo "$s $off 1 0" >>"$out/configs.txt"; done
done
for rows in 2 4 8; do for s in 1 2 3 4 8; do for pitch in 1440 4096 4099 40 64 96; do for off in 0 5; do
  echo "$s $off $rows $pitch" >>"$out/configs.txt"
done; done; done; done
m=l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
ncu --clock-control none --metrics "$m" --csv --print-units base "$out/l1-wavefronts" <"$out/configs.txt" >"$out/ncu.csv" 2>"$out/ncu.err"
# The probe checks every value its loads read (and a sample of its stores) and says so last.
grep -h "patterns, every load" "$out/ncu.csv" || { echo "error: the probe failed its check, see $out/ncu.err" >&2; exit 1; }
python3 - "$out" <<'PY'
import csv, sys
out = sys.argv[1]
cfg = [l.split() for l in open(f"{out}/configs.txt")]
rows = list(csv.reader(l for l in open(f"{out}/ncu.csv") if l.startswith('"')))
h = rows[0]
by = {"strided": {}, "strided_store": {}}
for r in rows[1:]:
    k = r[h.index("Kernel Name")] if len(r) == len(h) else None
    if k in by:
        by[k].setdefault(int(r[0]), {})[r[h.index("Metric Name")]] = float(r[h.index("Metric Value")].replace(",", ""))
def passes(kernel, strided, other):
    # The data pipe's wavefronts per strided request, less one per coalesced request of the other kind.
    got = []
    for i, c in zip(sorted(by[kernel]), cfg):
        m = by[kernel][i]
        req = lambda op: m[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"]
        got.append((m["l1tex__data_pipe_lsu_wavefronts.sum"] - req(other)) / req(strided))
    return got
loads, stores = passes("strided", "ld", "st"), passes("strided_store", "st", "ld")
# Each taken relative to its coalesced pattern (the load's broadcast, s = 0; the store's s = 1 at offset 0)
# as one pass.
lb = [w for c, w in zip(cfg, loads) if c[0] == "0"]
lb = sum(lb) / len(lb)
sb = [w for c, w in zip(cfg, stores) if c[:3] == ["1", "0", "1"]]
sb = sum(sb) / len(sb) if sb else 1.0
with open(f"{out}/summary.csv", "w") as f:
    f.write("stride_words,offset_words,rows,pitch_words,load_wavefronts,store_wavefronts\n")
    for c, l, st in zip(cfg, loads, stores):
        f.write(",".join(c) + f",{l - lb + 1:.3f},{st - sb + 1:.3f}\n")
print(f"{len(loads)} load and {len(stores)} store patterns of {len(cfg)}: {out}/summary.csv")
PY
