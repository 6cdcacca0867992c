#!/bin/bash
# 4767b79: kernel-file steps (polygon included) and pnpoly with inst_executed.
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export WARPSCOPE_BIN=/tmp/warpscope
mkdir -p /tmp/fk && cp -r .devcarry/fk/* /tmp/fk/ && tar xJf /tmp/fk/data.tar.xz -C /tmp/fk
export CUDA_PATH=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
DEVICE_CHECK_ONLY='devices|kfs-.*|kfe-.*|kfr-.*' bash scripts/device-check.sh $OUT/dc > $OUT/dc-summary.txt 2>&1
/tmp/warpscope sweep --kernel-file /tmp/fk/kernels/kt_pnpoly_cmem.toml --block 256 --define tile_size=1,4 --define between_method=0 --define use_precomputed_slopes=0,1 --define use_method=0,1 --model --metrics inst_executed --iters 10 --seed 1 --format json -o $OUT/pnpoly.json > $OUT/pnpoly.log 2>&1; echo "pnpoly rc=$?"
date -u
grep -E "exit|kernels meet|^kfs-polygon|^kfs-mandelbrot" $OUT/dc-summary.txt | head -70
cd $OUT && tar czf final2.tgz dc dc-summary.txt pnpoly.json pnpoly.log && rm -rf dc
