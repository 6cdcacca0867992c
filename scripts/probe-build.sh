# Sourced by the probe scripts (l1-wavefronts.sh, l1-throughput.sh, block-drain.sh), after `set -euo
# pipefail`, with the probe's name in $probe and the script's arguments: makes $out (the first argument,
# else $probe-DATE) absolute, moves to the repository's root and builds scripts/$probe.cu into
# $out/$probe for the GPU present (each probe's figures are stated for the cards it ran on).
out=${1:-$probe-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=native -o "$out/$probe" "scripts/$probe.cu"
