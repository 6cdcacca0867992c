#!/bin/bash
# What an atomic costs L2's input port (issue 14, thirty-fifth session; docs/MODEL.md section 37):
# ncu's lts__xbar2lts_cycles_active against the atomics' L2 requests and sectors, for atoms.cu over
# footprints of 1 line to 4 MiB (a line or one word a warp) and histogram_wide at 256 to 65536 bins.
# Run from the repository root: WS=target/release/warpscope OUT=dir bash docs/results/atomics-2026-12-07/xbar.sh
set -u
ws=${WS:-target/release/warpscope}; out=${OUT:?}; here=$(dirname "$0"); mkdir -p "$out"
nvcc -O3 -arch=sm_90 -o /tmp/atoms "$here/atoms.cu" || exit 1
m=gpu__time_duration.sum,lts__xbar2lts_cycles_active.sum,lts__xbar2lts_cycles_active.max,lts__t_requests_srcunit_tex_op_red.sum
m+=,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__cycles_elapsed.avg
m+=,lts__d_atomic_input_cycles_active.max,lts__d_atomic_input_cycles_active.sum
for mode in 0 1; do for f in 128 1024 16384 65536 4194304; do
  echo "## atoms F=$f mode=$mode" >>"$out/xbar.csv"
  ncu --clock-control none --launch-count 1 --metrics "$m" --csv /tmp/atoms $f $mode 2>&1 | grep -v '^==' >>"$out/xbar.csv"
done; done
for b in 256 1024 4096 16384 65536; do
  echo "## histogram_wide bins=$b" >>"$out/xbar.csv"
  ncu --clock-control none --launch-count 1 --launch-skip 1 --kernel-name histogram_wide --metrics "$m" --csv \
    "$ws" run --kernel-file examples/kernels/histogram_wide.toml --size bins=$b --block 256 --define num_blocks=1056 --iters 3 --warmup 1 2>&1 \
    | grep -v '^==PROF==' >>"$out/xbar.csv"
done
echo done >>"$out/xbar.csv"
