#!/bin/bash
# The L1-to-L2 request port's busy cycles against the write and read requests and sectors crossing it.
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
m="l1tex__m_l1tex2xbar_req_cycles_active.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__data_pipe_lsu_wavefronts.sum,sm__cycles_active.sum,gpu__time_duration.sum,l1tex__m_l1tex2xbar_req_cycles_active.max,sm__cycles_active.max"
for spec in "copy copyFloat 256x1" "copy-float4 copyFloat4 256x1" "transpose-naive transposeNaive 32x8" "transpose-naive transposeNaive 16x16" "transpose-shared transposeShared 32x8" "sum-matrix sumMatrixOnGPU2D 32x8" "gaussian-smooth gaussianSmooth 16x16" "rgb-to-gray rgbToGray 32x8" "resize resizeBilinear 32x4" "aos aosSum 256x1" "blur-rows blurRows 16x16" "blur-cols blurCols 32x1" "blur-rgv rgV 32x1" "blur-rgh rgH 256x1 --nx 4104" "blur-rgh rgH 256x1" "blur-rgh rgH 1024x1 --nx 4104" "matmul-strided matmulStrided 32x4"; do
  set -- $spec; k=$1; e=$2; b=$3; shift 3
  echo "== $k $b $*"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --metrics "$m" \
    /tmp/warpscope sweep "$k" --block "$b" "$@" --iters 3 --warmup 1 -q 2>&1 | grep -E "^\s+(l1tex|lts__|gpu__|sm__)" | awk '{print $1, $NF, $(NF-1)}'
done | tee $OUT/ncuport.txt
