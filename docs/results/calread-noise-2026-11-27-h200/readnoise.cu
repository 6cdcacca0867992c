// calRead's measurement, 40 times in one process: half and all of a 4 x L2 buffer read once with float4
// loads by 8 blocks of 256 per SM, L2 flushed by reading another 2 x L2 buffer before each timed read.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(err_), __LINE__); return 1; } } while (0)
__global__ void rd(const float4 *in, int n4, float *out) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = tid; i < n4; i += threads) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
    if (acc == 1234.5f) out[tid] = acc;
}
int main() {
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    size_t l2 = p.l2CacheSize, n = 4 * l2; if (n < (256u << 20)) n = 256u << 20;
    float4 *a, *f; float *out;
    CK(cudaMalloc(&a, n)); CK(cudaMalloc(&f, n / 2)); CK(cudaMalloc(&out, 1 << 24));
    CK(cudaMemset(a, 0, n)); CK(cudaMemset(f, 0, n / 2));
    int sms = p.multiProcessorCount, n4 = (int)(n / 16);
    cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    auto t = [&](int k) { rd<<<sms * 8, 256>>>(f, (int)(n / 32), out); cudaEventRecord(s); rd<<<sms * 8, 256>>>(a, k, out); cudaEventRecord(e); cudaEventSynchronize(e); float ms; cudaEventElapsedTime(&ms, s, e); return ms * 1000.0f; };
    t(n4); t(n4 / 2);
    for (int r = 0; r < 40; ++r) { float h = t(n4 / 2), w = t(n4); printf("%.3f %.3f\n", h, w); }
    CK(cudaGetLastError());
    return 0;
}
