#!/bin/bash
# The L2 atomic term on the GPU (issue 14, thirty-fifth session; docs/MODEL.md section 37): the device
# calibrated (calAtomics among the rest), the histogram kernel files swept with the model (the global
# one's 1 KiB of bins in 2 slices; histogram_wide at 1, 16 and 256 KiB of bins), model-check's terms,
# and ncu's atomic-unit counters on one configuration of each wide footprint.
# Run from the repository root: WS=target/release/warpscope OUT=dir bash docs/results/atomics-2026-12-07/term.sh
set -u
ws=${WS:-target/release/warpscope}; out=${OUT:?}; mkdir -p "$out"
"$ws" devices --calibrate >"$out/calibration.txt" 2>&1
"$ws" devices --calibrate --format json >"$out/calibration.json" 2>>"$out/calibration.txt"
run() {  # name, kernel file, extra sweep arguments
  "$ws" sweep --kernel-file "$2" --model --format json -o "$out/$1.json" "${@:3}" >"$out/$1.txt" 2>&1 || echo "$1 sweep failed" >>"$out/$1.txt"
  "$ws" model-check --kernel-file "$2" --terms "$out/$1.json" >>"$out/$1.txt" 2>&1
}
run hist-global examples/kernels/histogram_global.toml
run hist-shared examples/kernels/histogram_shared.toml
for b in 256 4096 65536; do run wide-$b examples/kernels/histogram_wide.toml --size bins=$b; done
m=gpu__time_duration.sum,lts__d_atomic_input_cycles_active.sum,lts__d_atomic_input_cycles_active.max
m+=,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex_op_red.sum,lts__cycles_elapsed.avg,lts__xbar2lts_cycles_active.sum
for b in 256 4096 65536; do
  echo "## histogram_wide bins=$b block 256 num_blocks=1056" >>"$out/ncu.txt"
  ncu --clock-control none --launch-count 1 --launch-skip 1 --kernel-name histogram_wide --metrics "$m" --csv \
    "$ws" run --kernel-file examples/kernels/histogram_wide.toml --size bins=$b --block 256 --define num_blocks=1056 --iters 3 --warmup 1 2>&1 \
    | grep -v '^==PROF==' >>"$out/ncu.txt"
done
grep -h "L2 atomic" "$out/calibration.txt"
for f in "$out"/*.txt; do echo "== $f"; grep -E "^ histogram|median|error" "$f" | head -14; done
