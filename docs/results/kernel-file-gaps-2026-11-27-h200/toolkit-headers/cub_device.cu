// Does CUB's device-wide header compile under NVRTC with the toolkit's include folders?
#include <cub/device/device_reduce.cuh>
#include <cuda/std/cstdint>
extern "C" __global__ void k(float *a, int n) { if (threadIdx.x < n) a[threadIdx.x] = (float)cuda::std::int32_t(n); }
