#!/bin/bash
gunzip -c .devcarry/ws/warpscope.gz > /tmp/new && gunzip -c .devcarry/ws/warpscope-old.gz > /tmp/old && chmod +x /tmp/new /tmp/old
export CUDA_PATH=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for b in old new; do
  /tmp/$b sweep --kernel-file examples/kernels/polygon.toml --model --metrics inst_executed --seed 1 --format json -o $OUT/$b-polygon.json > $OUT/$b-polygon.log 2>&1; echo "$b rc=$?"
done
/tmp/new model-check $OUT/old-polygon.json $OUT/new-polygon.json 2>&1 | cut -c1-200
