set -u
export PATH=/usr/local/cuda/bin:$PATH
m="gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
run() {
  k=$1; e=$2; b=$3
  echo "== $k $b"
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --metrics "$m" \
    /tmp/warpscope sweep "$k" --block "$b" --iters 3 --warmup 1 -q 2>&1 | grep -E "^ +(gpu|lts|l1tex)__" | tr -s ' '
}
for kb in resize:resizeBilinear:32x8 resize:resizeBilinear:128x1 resize:resizeBilinear:32x32 \
  blur-rows:blurRows:32x8 blur-rows:blurRows:256x1 blur-cols:blurCols:32x8 blur-cols:blurCols:256x1 \
  blur-rows-tiled:blurRowsTiled:32x8 blur-cols-tiled:blurColsTiled:32x8 rgb-to-gray:rgbToGray:32x8 rgb-to-gray:rgbToGray:128x1 \
  transpose-shared:transposeShared:32x8 transpose-naive:transposeNaive:32x8 transpose-naive:transposeNaive:16x16 \
  sum-matrix:sumMatrixOnGPU2D:32x8 matmul-strided:matmulStrided:32x8 matmul-strided:matmulStrided:128x1 \
  copy:copyFloat:256x1 aos:aosSum:256x1 blur-direct:blurDirect:32x8 mad:mad24:256x1; do
  IFS=: read k e b <<<"$kb"; run $k $e $b
done
