#!/bin/bash
# Atomics on the GPU (issue 14, thirty-fourth session; docs/MODEL.md section 36): the two histogram
# kernel files swept with the model (measured against predicted: the model counts atomics as stores and
# prices no contention), then ncu's L2 and L1 atomic counters on one configuration of each.
# Run from the repository root: WS=target/release/warpscope OUT=dir bash docs/results/atomics-2026-12-07/probe.sh
set -u
ws=${WS:-target/release/warpscope}; out=${OUT:?}; mkdir -p "$out"
for k in shared global; do
  "$ws" sweep --kernel-file examples/kernels/histogram_$k.toml --model --format json -o "$out/hist-$k.json" >"$out/hist-$k.txt" 2>&1 \
    || echo "hist-$k sweep failed" >>"$out/hist-$k.txt"
  "$ws" model-check --kernel-file examples/kernels/histogram_$k.toml --terms "$out/hist-$k.json" >>"$out/hist-$k.txt" 2>&1
done
# Only the metric names this ncu knows (one unknown name fails the run).
ncu --query-metrics 2>/dev/null | awk '{print $1}' >"$out/names.txt"
want="gpu__time_duration.sum lts__t_requests_srcunit_tex_op_atom.sum lts__t_sectors_srcunit_tex_op_atom.sum
lts__t_requests_srcunit_tex_op_red.sum lts__t_sectors_srcunit_tex_op_red.sum lts__t_requests_srcunit_tex_op_write.sum
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
lts__xbar2lts_cycles_active.sum lts__cycles_elapsed.avg lts__d_atomic_input_cycles_active.sum lts__t_sectors_op_atom.sum
lts__t_sectors_op_red.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum smsp__inst_executed_op_shared_atom.sum
smsp__inst_executed_op_global_red.sum smsp__inst_executed_op_global_atom.sum sm__cycles_elapsed.avg
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum l1tex__m_l1tex2xbar_write_sectors_mem_global_op_red.sum
l1tex__m_l1tex2xbar_write_sectors_mem_global_op_atom.sum"
m=""; for w in $want; do b=${w%.*}; grep -qx "$b" "$out/names.txt" && m+="${m:+,}$w"; done
echo "metrics: $m" >"$out/ncu.txt"
for k in shared global; do for nb in 264 1056; do
  echo "## histogram_$k block 256 num_blocks=$nb" >>"$out/ncu.txt"
  ncu --clock-control none --launch-count 1 --launch-skip 1 --kernel-name "histogram_$k" --metrics "$m" --csv --page raw \
    "$ws" run --kernel-file examples/kernels/histogram_$k.toml --block 256 --define num_blocks=$nb --iters 3 --warmup 1 2>&1 \
    | grep -v '^==PROF==' >>"$out/ncu.txt"
done; done
echo done >>"$out/ncu.txt"
