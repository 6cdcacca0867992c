#!/bin/bash
# The session's final binary: kernel-file steps, l1-port, pnpoly with its constants under sweep --model.
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export WARPSCOPE_BIN=/tmp/warpscope
mkdir -p /tmp/fk && cp -r .devcarry/fk/* /tmp/fk/ && tar xJf /tmp/fk/data.tar.xz -C /tmp/fk
export CUDA_PATH=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
DEVICE_CHECK_ONLY='devices|selftest|kf.*|l1-port' bash scripts/device-check.sh $OUT/dc > $OUT/dc-summary.txt 2>&1
/tmp/warpscope sweep --kernel-file /tmp/fk/kernels/kt_pnpoly_cmem.toml --block 128,256 --define tile_size=1,4 --define between_method=0 --define use_precomputed_slopes=0,1 --define use_method=0,1 --model --metrics inst_executed --iters 10 --seed 1 --format json -o $OUT/pnpoly.json > $OUT/pnpoly.log 2>&1; echo "pnpoly rc=$?"
/tmp/warpscope model-check $OUT/pnpoly.json --kernel-file /tmp/fk/kernels/kt_pnpoly_cmem.toml > $OUT/pnpoly-repredict.txt 2>&1; echo "repredict rc=$?"
date -u
grep -E "exit|kernels meet|^model: " $OUT/dc-summary.txt | head -80
cd $OUT && tar czf final.tgz dc dc-summary.txt pnpoly.json pnpoly.log pnpoly-repredict.txt && rm -rf dc
