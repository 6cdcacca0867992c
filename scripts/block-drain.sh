#!/usr/bin/env bash
# Warp slots a block holds idle while its last warps finish, against block size (docs/MODEL.md section 20):
# builds scripts/block-drain.cu for the GPU present and runs it (copyFloat's work, 64 to 1024 threads a
# block). Writes drain.csv. Run on the GPU machine:
#   scripts/block-drain.sh [OUTDIR]
set -euo pipefail
probe=block-drain
source "$(dirname "$0")/probe-build.sh"
"$out/block-drain" | tee "$out/drain.csv"
grep -q "every output element right" "$out/drain.csv" || { echo "error: the probe failed its check" >&2; exit 1; }
