#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; date -u
nvcc -O3 -arch=native -o /tmp/cmem .devcarry/ws/cmem.cu && /tmp/cmem | tee $OUT/cmem.csv
