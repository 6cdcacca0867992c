#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
nvcc -O3 -arch=native -o /tmp/imc .devcarry/ws/imc.cu && /tmp/imc | tee $OUT/imc.csv
cuobjdump -sass /tmp/imc | grep -E "ULDC|LDC" | head -8
cuobjdump -sass /tmp/imc | grep -cE "ULDC.64|LDC.64"
