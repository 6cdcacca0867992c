#!/usr/bin/env bash
# On a GPU machine: every experiment file in experiments/ through `warpscope run-spec`, each into its own
# folder under OUTDIR (tables as JSON, CSV, Markdown and text, figures as SVG, logs, summary.md), then
# one index, OUTDIR/README.md, joining the summaries.
#   scripts/reproduce-seeds.sh OUTDIR        (binary: $WARPSCOPE_BIN, default target/release/warpscope,
#                                             built with `cargo build --release` when it is not there)
set -uo pipefail
out=${1:?usage: scripts/reproduce-seeds.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${WARPSCOPE_BIN:-}" ]; then
  bin=$WARPSCOPE_BIN
  if [ ! -x "$bin" ]; then
    echo "error: $bin is not an executable warpscope (WARPSCOPE_BIN); unset it to build target/release/warpscope" >&2
    exit 2
  fi
else
  bin=$here/target/release/warpscope
  if [ ! -x "$bin" ]; then
    echo "building $bin (cargo build --release)" >&2
    if ! (cd "$here" && cargo build --release --locked) >&2; then
      echo "error: cannot build $bin: cargo build --release failed (see above); or set WARPSCOPE_BIN" >&2
      exit 2
    fi
  fi
fi
mkdir -p "$out"
status=0
lines=()
for spec in "$here"/experiments/*.toml; do
  name=$(basename "$spec" .toml)
  t0=$(date +%s)
  "$bin" run-spec "$spec" -o "$out/$name" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  case $rc in 129|130|143) echo "interrupted"; exit "$rc" ;; esac
  if [ "$rc" -ne 0 ]; then
    # The worst exit wins (2: a step could not run, 1: a result failed verification); say why here.
    [ "$rc" -gt "$status" ] && status=$rc
    why=$(grep -m1 -h '^\*\*error: ' "$out/$name/summary.md" 2>/dev/null | tr -d '*')
    echo "$name: exit $rc: ${why:-$(tail -n1 "$out/$name.err")}" >&2
  fi
  lines+=("$(printf '%-24s exit %-3s %5ss' "$name" "$rc" "$(( $(date +%s) - t0 ))")")
done
{
  echo "# warpscope: the seed experiments reproduced"
  echo
  for spec in "$here"/experiments/*.toml; do
    name=$(basename "$spec" .toml)
    [ -f "$out/$name/summary.md" ] && sed -e "s#](\([^)]*\.svg\))#]($name/\1)#" -e 's/^#/##/' "$out/$name/summary.md" && echo
  done
} >"$out/README.md"
echo "== warpscope seed experiments ($(date -u +%FT%TZ))"
printf '%s\n' "${lines[@]}"
echo "index: $out/README.md"
exit $status
