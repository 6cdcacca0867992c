#!/bin/bash
# Divisions and roots as SASS routines: inst_executed and times, the binary before (old) and after (new).
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/new && gunzip -c .devcarry/ws/warpscope-old.gz > /tmp/old && chmod +x /tmp/new /tmp/old
mkdir -p /tmp/fk && cp -r .devcarry/fk/* /tmp/fk/ && tar xJf /tmp/fk/data.tar.xz -C /tmp/fk
K=/tmp/fk/kernels
export CUDA_PATH=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for b in old new; do
  /tmp/$b sweep --kernel-file $K/kt_pnpoly_cmem.toml --block 128,256 --define tile_size=1,4 --define between_method=0 --define use_precomputed_slopes=0,1 --define use_method=0,1 --model --metrics inst_executed --iters 10 --seed 1 --format json -o $OUT/$b-pnpoly.json > $OUT/$b-pnpoly.log 2>&1
  /tmp/$b sweep --kernel-file $K/kt_expdist_blockreduce.toml --block 32x2,64x4,128x8,256x2 --define use_shared_mem=0,1 --model --metrics inst_executed --iters 10 --seed 1 --format json -o $OUT/$b-expdist.json > $OUT/$b-expdist.log 2>&1
  /tmp/$b sweep resize --block 32x8,16x16,128x2,256x1,32x32 --model --metrics inst_executed --iters 10 --format json -o $OUT/$b-resize.json > $OUT/$b-resize.log 2>&1
  /tmp/$b sweep blur-direct --block 32x8,16x16,128x2 --model --metrics inst_executed --iters 10 --format json -o $OUT/$b-blurdirect.json > $OUT/$b-blurdirect.log 2>&1
done
date -u
cd $OUT && tar czf div.tgz *.json *.log && rm -f *.json *.log
