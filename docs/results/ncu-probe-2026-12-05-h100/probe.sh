#!/bin/bash
# ncu on the kernels the model misses most (issue 14, twenty-ninth session): which L2 and L1 sub-unit
# binds the naive transpose's 16-wide shapes (not the port at 16x4 and 16x8: 67-69 % busy on 2026-11-27),
# and where rgH's one-thread-per-row samples wait. Run from the repository root; OUT the folder.
#   WS=target/release/warpscope OUT=dir bash probe.sh
ws=${WS:-target/release/warpscope}
out=${OUT:?}
mkdir -p "$out"
base=gpu__time_duration.sum,lts__xbar2lts_cycles_active.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum
base+=,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__cycles_elapsed.avg
base+=,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active
base+=,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
l1=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
l1+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum
l1+=,lts__t_sector_op_read_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,smsp__inst_executed.sum,sm__cycles_active.avg
one() { # one KERNEL BLOCK ENTRY
  local k=$1 b=$2 e=$3
  ncu --clock-control none --launch-count 1 --kernel-name "$e" --launch-skip 1 --metrics "$base,$l1" \
    --section WarpStateStats --section SchedulerStats --section Occupancy \
    "$ws" sweep "$k" --block "$b" --iters 3 --warmup 1 -q >"$out/$k-$b.txt" 2>&1 || echo "$k $b: ncu failed"
  ncu --clock-control none --launch-count 1 --kernel-name "$e" --launch-skip 1 --metrics "$base,$l1" --csv --page raw \
    "$ws" sweep "$k" --block "$b" --iters 3 --warmup 1 -q >"$out/$k-$b.csv" 2>&1 || echo "$k $b: ncu csv failed"
}
for b in 16x4 16x8 16x16 16x32 32x8 32x32; do one transpose-naive $b transposeNaive; done
for b in 32 64 256 1024; do one blur-rgh $b rgH; done
for b in 16x16; do one transpose-l $b transposeL; done
