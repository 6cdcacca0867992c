set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
m="gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__data_pipe_lsu_wavefronts.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,lts__t_requests.avg.pct_of_peak_sustained_elapsed"
run() {
  k=$1; e=$2; b=$3
  echo "== $k $b"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --metrics "$m" \
    /tmp/warpscope sweep "$k" --block "$b" --iters 3 --warmup 1 -q 2>&1 | grep -E "^ +(gpu|lts|l1tex|dram|sm|smsp)__" | tr -s ' '
}
for b in 32x1 64x1 128x1 256x1 1024x1 16x2 16x8 32x2 32x8 32x32 128x2 256x4; do run matmul-coalesced matmulCoalesced $b; done
for b in 32x1 256x1 512x1 1024x1 16x8 32x2 32x8 32x32 128x4; do run gaussian-smooth gaussianSmooth $b; done
