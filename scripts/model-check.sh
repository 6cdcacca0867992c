#!/usr/bin/env bash
# The time model against the GPU (issue 14): calibrates the device, sweeps every built-in kernel over
# ordinary block lists (32 to 1024 threads, 1D and 2D shapes) with --model, and prints warpscope
# model-check over all of them. Run it on each GPU machine (H100, H200); everything goes to one folder.
#   scripts/model-check.sh [OUTDIR] [--device N]
# OUTDIR defaults to model-check-<gpu>-<UTC date>. What to look for: the last line of model-check.txt
# ("N of M kernels meet the targets") and the verdict column; calibration.txt shows the figures the model
# used (they differ between cards: no constant of the model is fitted to either).
set -euo pipefail
source "$(dirname "$0")/args.sh"
gpu=$("$ws" devices --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[int(sys.argv[1])]["name"].replace(" ", "-"))' "$device")
out=${out:-model-check-$gpu-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
log=$out/run.log
: >"$log"

# 2D kernels: warp-wide rows and the half-warp 16-wide ones, up to 1024 threads.
BLOCKS_2D=32x1,64x1,128x1,256x1,512x1,1024x1,16x2,16x4,16x8,16x16,16x32,32x2,32x4,32x8,32x16,32x32,64x2,64x4,64x8,64x16,128x2,128x4,128x8,256x2,256x4
# 1D kernels.
BLOCKS_1D=32,64,96,128,192,256,384,512,768,1024
# Tiles sized by the block (block.x a multiple of block.y).
BLOCKS_TILE=16x1,16x2,16x4,16x8,16x16,32x1,32x2,32x4,32x8,32x16,32x32,64x1,64x2,64x4,64x8,64x16,128x1,128x2,128x4,128x8
# One thread per line, and the column segments.
BLOCKS_LINE=32,64,128,256,512,1024
BLOCKS_SEG=32x1,32x2,32x4,32x8,64x1,64x2,64x4,128x1,128x2,256x1

sweep() {
  local kernel=$1 blocks=$2
  shift 2
  echo "== $kernel $*" | tee -a "$log"
  local t0=$SECONDS
  if "$ws" sweep "$kernel" --block "$blocks" "$@" --model --device "$device" --format json \
    -o "$out/$kernel.json" -q >>"$log" 2>&1; then
    echo "   ok, $((SECONDS - t0)) s" | tee -a "$log"
  else
    echo "   FAILED (exit $?), see $log" | tee -a "$log"
  fi
}

# Only this script's device is calibrated, so runs on the other GPUs of a host are not disturbed.
"$ws" devices --calibrate --device "$device" | tee "$out/calibration.txt"
"$ws" devices --calibrate --device "$device" --format json >"$out/calibration.json"

for k in sum-matrix rgb-to-gray resize gaussian-smooth transpose-naive matmul-coalesced matmul-strided \
  blur-direct blur-rows blur-cols blur-rows-tiled blur-cols-tiled; do
  sweep "$k" "$BLOCKS_2D"
done
for k in transpose-shared transpose-shared-diag; do
  sweep "$k" "$BLOCKS_TILE"
done
sweep transpose-l 16x16
sweep transpose-ls 16x16
sweep transpose-tile64 32x8
for k in copy copy-float4 copy-float4x4 mad diverge-odd-even diverge-warp aos soa; do
  sweep "$k" "$BLOCKS_1D"
done
sweep blur-rgv "$BLOCKS_LINE"
sweep blur-rgh "$BLOCKS_LINE"
sweep blur-rgv-seg "$BLOCKS_SEG"

shopt -s nullglob
files=()
for f in "$out"/*.json; do
  case "$(basename "$f")" in calibration.json | model-check.json) ;; *) files+=("$f") ;; esac
done
"$ws" model-check "${files[@]}" | tee "$out/model-check.txt"
"$ws" model-check "${files[@]}" --format json >"$out/model-check.json"
# The same measurements predicted for the other card of the pair from the database alone (how the
# offline model transfers), for comparison with that card's own run.
for other in H100 H200; do
  "$ws" model-check "${files[@]}" --gpu "$other" >"$out/model-check-as-$other.txt" || true
done
echo "wrote $out/ (model-check.txt: per-kernel verdicts; run.log: every sweep's output)"
