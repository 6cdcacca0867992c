#!/bin/bash
# pnpoly: where the division's time goes (instructions executed, stalls), ups=0 against ups=1.
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
mkdir -p /tmp/fk && cp -r .devcarry/fk/* /tmp/fk/ && tar xJf /tmp/fk/data.tar.xz -C /tmp/fk
K=/tmp/fk/kernels
export CUDA_PATH=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
for ups in 0 1; do
  echo "== ups=$ups"
  ncu --clock-control none --kernel-name cn_pnpoly --launch-skip 2 --launch-count 1 --section WarpStateStats --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,sm__cycles_active.avg,gpu__time_duration.sum,smsp__inst_executed_pipe_xu.sum,smsp__average_warp_latency_per_inst_issued.ratio \
    /tmp/warpscope sweep --kernel-file $K/kt_pnpoly_cmem.toml --block 256 --define tile_size=1 --define between_method=0 --define use_precomputed_slopes=$ups --define use_method=1 --iters 3 --warmup 1 -q 2>&1 | grep -vE "^==PROF|^\s*$|----" | cut -c1-160 | head -60
done
