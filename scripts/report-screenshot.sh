#!/usr/bin/env bash
# The README's pictures of a results file: its figure (SVG) and a screenshot of its HTML report as
# headless Chromium shows it (no GPU needed here: the results come from one).
#   scripts/report-screenshot.sh RESULTS.json OUTDIR [NAME]
# writes OUTDIR/NAME.svg, OUTDIR/NAME.html and OUTDIR/NAME.png (NAME: the results file's name).
# Binary: $WARPSCOPE_BIN, default target/release/warpscope; browser: Debian's chromium.
set -euo pipefail
results=${1:?usage: scripts/report-screenshot.sh RESULTS.json OUTDIR [NAME]}
out=${2:?usage: scripts/report-screenshot.sh RESULTS.json OUTDIR [NAME]}
name=${3:-$(basename "${results%.*}")}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${WARPSCOPE_BIN:-$here/target/release/warpscope}
[ -x "$bin" ] || { echo "error: $bin is not an executable warpscope (build it, or set WARPSCOPE_BIN)" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "error: no chromium (Debian: apt-get install chromium)" >&2; exit 2; }
mkdir -p "$out"
"$bin" report "$results" --heatmap time,achieved_occupancy --plot "$out/$name.svg" -o "$out/$name.html"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# The flags a closed network needs (no background connections, no updates, no sync).
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size=1400,1200 --screenshot="$out/$name.png" "file://$(cd "$out" && pwd)/$name.html" 2>/dev/null
echo "wrote $out/$name.svg, $out/$name.html, $out/$name.png"
