set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export PATH=/usr/local/cuda/bin:$PATH
m="gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__warps_eligible.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio"
for b in 32x2 32x8 128x4 32x16 32x32 256x4 64x1 16x16; do
  echo "== gaussianSmooth $b"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name gaussianSmooth --section WarpStateStats --metrics "$m" \
    /tmp/warpscope sweep gaussian-smooth --block "$b" --iters 3 --warmup 1 -q 2>&1 | grep -vE "^==PROF|^\s*$|----" | grep -E "l1tex|gpu__|sm__|smsp__|launch__|Stall|stalled|Warp Cycles|Avg\. " | cut -c1-150
done
