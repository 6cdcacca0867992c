#!/usr/bin/env bash
# Six processes of readsize, then six `warpscope devices --calibrate` (each a fresh calibration) and
# sweeps of read-bound kernels, to set calRead's figure beside the size probe's and real kernels' times.
#   run.sh OUT   (WARPSCOPE_BIN: the warpscope binary)
set -u
out=${1:?folder}
mkdir -p "$out"
nvcc -O3 -arch=sm_90 -o /tmp/readsize "$(dirname "$0")/readsize.cu" || exit 1
for i in 1 2 3 4 5 6; do /tmp/readsize > "$out/readsize-run$i.txt" 2>&1; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt"
bin=${WARPSCOPE_BIN:-warpscope}
for i in 1 2 3 4 5 6; do "$bin" devices --calibrate > "$out/calibrate-run$i.txt" 2>&1; done
for k in aos soa copy-float4; do
  "$bin" sweep $k --bx 128,256,512 --iters 50 --model -q > "$out/sweep-$k.txt" 2>&1
done
grep -h "DRAM read bandwidth" "$out"/calibrate-run*.txt
grep -h "between  2 and 16\|16xL2" "$out"/readsize-run*.txt
# --timeout on the GPU's busy time: a sweep with counters and models under a short limit finishes.
"$bin" sweep sum-matrix --bx 32,64,128,256 --by 1,2,4 --metrics achieved_occupancy --model --timeout 0.3 -q \
  > "$out/timeout-healthy.txt" 2>&1
echo "timeout-healthy exit $? ($(grep -c verified "$out/timeout-healthy.txt") verified rows)"
