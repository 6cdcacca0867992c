#!/bin/bash
# What nvcc accepts in a .cu without includes (the names NVRTC lacks).
cd "$(dirname "$0")"
nvcc --version | tail -2
for f in types stdint limits; do echo "== $f"; nvcc -c -o /dev/null $f.cu 2>&1 | grep -E "error" | head -12; echo "rc=$?"; done
echo "== what int64_t and uint are"; printf '#include <type_traits>\n__global__ void k(int *a){ a[0] = std::is_same<int64_t,long>::value + 2*std::is_same<int64_t,long long>::value + 4*std::is_same<uint,unsigned>::value; }\n' > w.cu; nvcc -c -o /dev/null w.cu 2>&1 | grep error | head
ls /usr/local/cuda/include/cccl 2>/dev/null | head; ls -d /usr/local/cuda/include/cuda/std 2>/dev/null; ls /usr/local/cuda/include/cccl/cuda/std/cstdint 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
