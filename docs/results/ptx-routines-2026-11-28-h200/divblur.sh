#!/bin/bash
set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/new && gunzip -c .devcarry/ws/warpscope-old.gz > /tmp/old && chmod +x /tmp/new /tmp/old
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for b in old new; do
  for k in blur-cols-tiled blur-rows blur-rows-tiled; do
    /tmp/$b sweep $k --block 32x1,32x4,32x8,16x16,64x4,128x2,256x1,32x32 --model --metrics inst_executed --iters 10 --format json -o $OUT/$b-$k.json > $OUT/$b-$k.log 2>&1
  done
done
cd $OUT && tar czf divblur.tgz *.json *.log && rm -f *.json *.log
