#!/usr/bin/env bash
# Clocks the L1 takes per warp-wide global load when nothing else limits (docs/MODEL.md section 20):
# builds scripts/l1-throughput.cu for the GPU present and runs it over load patterns (coalesced 4, 8 and
# 16-byte loads, broadcasts, strides, rows of lanes, and pairs of them alternating) at 8, 16, 32 and 64
# warps per SM, every load an L1 hit, and matmul's pair of loads with the shared line hitting or missing
# L1. Writes rates.csv and misses.csv (clocks per request, the median of five launches, and their spread). Run on the GPU machine:
#   scripts/l1-throughput.sh [OUTDIR]
set -euo pipefail
probe=l1-throughput
source "$(dirname "$0")/probe-build.sh"
# Patterns "s rows pitch width": coalesced words, a broadcast, float2, float4, strides of 2 to 128 words,
# two half-warp rows in one bank (1024 words apart) or in one line, a half-warp broadcast on two rows.
single="1 1 0 1|0 1 0 1|1 1 0 2|1 1 0 4|2 1 0 1|4 1 0 1|8 1 0 1|32 1 0 1|128 1 0 1|1 2 1024 1|1 2 16 1|0 2 1024 1|1 2 0 1"
: >"$out/configs.txt"
IFS='|' read -ra pats <<<"$single"
for bps in 1 2 4 8; do
  for p in "${pats[@]}"; do echo "$p $p $bps" >>"$out/configs.txt"; done
  # Pairs: a coalesced load and a broadcast (matmul's 32-wide warps), the 16-wide pair, a coalesced load
  # and a 32-line one, a coalesced word and a float4.
  for pair in "1 1 0 1 0 1 0 1" "1 2 0 1 0 2 1024 1" "1 1 0 1 128 1 0 1" "1 1 0 1 1 1 0 4"; do
    echo "$pair $bps" >>"$out/configs.txt"
  done
done
"$out/l1-throughput" <"$out/configs.txt" | tee "$out/rates.csv"
grep -q "every thread's sum right" "$out/rates.csv" || { echo "error: the probe failed its check" >&2; exit 1; }
# matmul's pair (a warp's broadcast word, hit, and a line the block's warps share, new every load): the
# shared lines missing L1 (fresh = 1, from L2) or hitting (0), at 64 and 32 warps per SM in blocks of 4
# to 32 warps.
: >"$out/misses-configs.txt"
for fresh in 0 1; do
  for tb in "128 16" "256 8" "512 4" "1024 2" "128 8" "256 4" "512 2" "1024 1"; do echo "$fresh $tb" >>"$out/misses-configs.txt"; done
done
"$out/l1-throughput" misses <"$out/misses-configs.txt" | tee "$out/misses.csv"
grep -q "every thread's sum right" "$out/misses.csv" || { echo "error: the misses probe failed its check" >&2; exit 1; }
