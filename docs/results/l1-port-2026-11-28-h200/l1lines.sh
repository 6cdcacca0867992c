#!/bin/bash
# Clocks per request for loads whose lanes each take their own line on distinct banks.
set -e
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=native -o /tmp/l1t scripts/l1-throughput.cu
: > /tmp/cfg
for bps in 2 4 8; do
  for s in 1 32 33 31 34 36 40 48 65 129 12 10; do echo "$s 1 0 1 $s 1 0 1 $bps" >> /tmp/cfg; done
  echo "1 1 0 1 33 1 0 1 $bps" >> /tmp/cfg
done
/tmp/l1t < /tmp/cfg | tee $OUT/lines.csv
