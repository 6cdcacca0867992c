#!/usr/bin/env bash
# The time model against every stored GPU sweep, without a GPU (issue 14): unpacks each
# docs/results/model-check-*/*/sweeps.tar.xz, re-predicts its records with this build's model and the
# sweep's own calibration (`warpscope model-check --repredict`), and prints how many kernels meet the
# targets in each sweep, each kernel's median over the sweeps (median |error|, Spearman, regret, sweeps
# missed) and the mean |log(predicted / measured)| over every configuration. Run it before and after a
# model change: the difference is the change's effect on measured data it was not fitted to.
#   scripts/repredict.sh [BIN]        (default $WARPSCOPE_BIN, else target/release/warpscope)
# REPREDICT_SWEEPS: the tarballs (globs, space-separated; default every docs/results/model-check-2026-11-2[678]-*/*/
# and model-check-2026-12-*/*/ one: the sweeps since calibration version 5, whose figures the model reads:
# 27 since the thirtieth session's H100 sweep; `docs/results/model-check-2026-11-2[678]-*/*/sweeps.tar.xz`
# is the 26 of the comparisons before it, `docs/results/model-check-2026-11-2[67]-*/*/sweeps.tar.xz` the 18
# of the earlier ones).
# REPREDICT_SKIP: kernels' file names to leave out (an extended regex; default none: rgH, left out
# until the seventeenth session for its slow estimate, is in since the exact walk's block memo).
set -euo pipefail
bin=${1:-${WARPSCOPE_BIN:-}}
# A path given relative to where the script was started, before moving to the repository's root.
[ -n "$bin" ] && [ -e "$bin" ] && bin=$(realpath -- "$bin")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${bin:-target/release/warpscope}
[ -x "$bin" ] || { echo "error: no warpscope binary at $bin (cargo build --release, or give its path)" >&2; exit 1; }
sweeps=${REPREDICT_SWEEPS:-docs/results/model-check-2026-11-2[678]-*/*/sweeps.tar.xz docs/results/model-check-2026-12-*/*/sweeps.tar.xz}
skip=${REPREDICT_SKIP-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One sweep into folder $2: unpacked, re-predicted, its terms.
one() {
  local t=$1 d=$2 f b
  local files=()
  mkdir -p "$d"
  tar xJf "$t" -C "$d"
  for f in "$d"/*.json; do
    b=$(basename "$f" .json)
    case "$b" in calibration | model-check) continue ;; esac
    [ -n "$skip" ] && [[ "$b" =~ ^($skip)$ ]] && continue
    files+=("$f")
  done
  echo "${t#docs/results/}" >"$d/name"
  "$bin" model-check --repredict "${files[@]}" --format json >"$d/check.json"
  "$bin" model-check --terms --repredict "${files[@]}" --format csv >"$d/terms.csv"
}
# The sweeps side by side, one per core.
jobs_max=$(nproc 2>/dev/null || echo 2)
n=0
for t in $sweeps; do
  [ -f "$t" ] || continue
  n=$((n + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || exit 1; done
  one "$t" "$tmp/$n" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || exit 1; done
[ "$n" -gt 0 ] || { echo "error: no sweeps match $sweeps" >&2; exit 1; }
python3 - "$tmp" "$n" <<'PY'
import csv, json, math, statistics, sys
tmp, n = sys.argv[1], int(sys.argv[2])
def missed(k):
    sp = k["spearman"]
    return (k["median_abs_error_pct"] > 10 or (k["spread_pct"] > 10 and (sp is None or sp < 0.9))
            or k["regret_pct"] > 5)
per, logs = {}, []
for i in range(1, n + 1):
    name = open(f"{tmp}/{i}/name").read().strip()
    kernels = json.load(open(f"{tmp}/{i}/check.json"))["kernels"]
    print(f"{name}: {sum(not missed(k) for k in kernels)} of {len(kernels)} kernels meet the targets")
    for k in kernels:
        per.setdefault(k["kernel"], []).append(k)
    for r in csv.DictReader(open(f"{tmp}/{i}/terms.csv")):
        logs.append(abs(math.log(float(r["predicted_ms"]) / float(r["measured_ms"]))))
print(f"\n{'kernel':22s} {'median |error|':>14s} {'Spearman':>8s} {'regret':>7s}  missed")
for kernel, ks in per.items():
    sps = [k["spearman"] for k in ks if k["spearman"] is not None]
    sp = f"{statistics.median(sps):8.2f}" if sps else f"{'n/a':>8s}"
    print(f"{kernel:22s} {statistics.median(k['median_abs_error_pct'] for k in ks):13.1f}% {sp} "
          f"{statistics.median(k['regret_pct'] for k in ks):6.1f}%  {sum(missed(k) for k in ks)} of {len(ks)}")
print(f"\nmean |log(predicted / measured)| over {len(logs)} configurations: {sum(logs) / len(logs):.4f}")
PY
