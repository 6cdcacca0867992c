#!/bin/bash
# L1 set-conflict probe: rgH at power-of-two and other pitches, with L1/L2 counters.
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
W=/tmp/warpscope
M=global_hit_rate,l2_tex_read_transactions,gld_transactions,dram_read_transactions,l2_tex_write_transactions
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
for nx in 4096 4128 4000 4104; do
  $W sweep blur-rgh --nx $nx --ny 4096 --block 32x1,64x1,128x1,256x1,1024x1 --model --metrics $M --format csv > $OUT/rgh-$nx.csv 2> $OUT/rgh-$nx.err || echo "rgh $nx failed"
done
for k in blur-rgv transpose-naive matmul-coalesced gaussian-smooth blur-cols; do
  $W sweep $k --block 32x1,32x4,16x16,32x32,256x1 --model --metrics $M --format csv > $OUT/$k.csv 2> $OUT/$k.err || echo "$k failed"
done
cd $OUT && tar czf all.tgz *.csv *.err && rm -f *.csv *.err
date -u
