#!/bin/bash
# atoms.cu over footprints of 128 B to 4 MiB: event times, then ncu's L2 atomic-unit counters (per-slice
# maximum and sum), to see over how many L2 slices a footprint's atomics spread. OUT: the logs' folder.
set -u
out=${OUT:?}; here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/atoms "$here/atoms.cu" || exit 1
m=gpu__time_duration.sum,lts__d_atomic_input_cycles_active.sum,lts__d_atomic_input_cycles_active.max,lts__t_sectors_op_red.max
m+=,lts__t_sectors_op_red.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex_op_red.sum,lts__cycles_elapsed.avg
for mode in 0 1; do for f in 128 256 512 1024 2048 4096 8192 16384 65536 262144 4194304; do
  /tmp/atoms $f $mode >>"$out/footprint-times.txt" 2>&1 || echo "F=$f mode=$mode failed" >>"$out/footprint-times.txt"
  echo "## F=$f mode=$mode" >>"$out/footprint-ncu.csv"
  ncu --clock-control none --launch-count 1 --metrics "$m" --csv /tmp/atoms $f $mode 2>&1 | grep -v '^==' >>"$out/footprint-ncu.csv"
done; done
echo done >>"$out/footprint-times.txt"
