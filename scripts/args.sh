# Sourced by model-check.sh and model-counters.sh: their arguments `[OUTDIR] [--device N]` into $out and
# $device, and the binary into $ws: $WARPSCOPE_BIN (e.g. one built elsewhere, on a machine without Rust),
# else built here. Runs from the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
device=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=$2; shift 2 ;;
    *) out=$1; shift ;;
  esac
done
ws=${WARPSCOPE_BIN:-}
if [ -z "$ws" ]; then
  cargo build --release --locked -q
  ws=target/release/warpscope
fi
