#!/usr/bin/env bash
# On a GPU machine: every experiment file in experiments/ through `warpscope run-spec`, each into its own
# folder under OUTDIR (tables as JSON, CSV, Markdown and text, figures as SVG, logs, summary.md), then
# one index, OUTDIR/README.md, joining the summaries.
#   scripts/reproduce-seeds.sh OUTDIR        (binary: $WARPSCOPE_BIN, default target/release/warpscope)
set -uo pipefail
out=${1:?usage: scripts/reproduce-seeds.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
status=0
lines=()
for spec in "$here"/experiments/*.toml; do
  name=$(basename "$spec" .toml)
  t0=$(date +%s)
  "$bin" run-spec "$spec" -o "$out/$name" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  [ "$rc" -ne 0 ] && status=1
  [ "$rc" -eq 130 ] && { echo "interrupted"; exit 130; }
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
