// How steady a DRAM read-bandwidth figure is against the bytes read: 2, 4, 8 and 16 x L2 read once with
// float4 loads by 8 blocks of 256 per SM (calRead's kernel, one load in flight a thread, and a variant
// with four; and blocks that each read their own 16 KiB, not persistent: rd0), L2 flushed by reading another 2 x L2 buffer before each timed read; 15 reads of each size,
// the sizes alternated; per size the median time and bytes / median; the rate between sizes. Run it in
// several processes: the figure that agrees across processes is the one to calibrate with.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(err_), __LINE__); return 1; } } while (0)
__global__ void rd1(const float4 *in, long n4, float *out) {
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (long i = tid; i < n4; i += threads) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
    if (acc == 1234.5f) out[tid] = acc;
}
__global__ void rd4(const float4 *in, long n4, float *out) {
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    long i = tid;
    for (; i + 3 * threads < n4; i += 4 * threads) {
        float4 a = in[i], b = in[i + threads], c = in[i + 2 * threads], d = in[i + 3 * threads];
        acc += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w;
    }
    for (; i < n4; i += threads) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
    if (acc == 1234.5f) out[tid] = acc;
}
// Not persistent: a block of 256 threads reads its own 16 KiB (four float4 a thread), as many blocks as the
// size needs, handed to whichever SM is free (as a kernel's blocks are).
__global__ void rdb(const float4 *in, long n4, float *out) {
    long base = blockIdx.x * 1024L + threadIdx.x;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        long i = base + k * 256L;
        if (i < n4) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
    }
    if (acc == 1234.5f) out[blockIdx.x * 256 + threadIdx.x] = acc;
}
int main() {
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    size_t l2 = p.l2CacheSize, n = 16 * l2;
    float4 *a, *f; float *out;
    CK(cudaMalloc(&a, n)); CK(cudaMalloc(&f, 2 * l2)); CK(cudaMalloc(&out, (size_t)1 << 30));
    CK(cudaMemset(a, 0, n)); CK(cudaMemset(f, 0, 2 * l2));
    int sms = p.multiProcessorCount;
    cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    auto t = [&](int kind, long n4) {
        rd1<<<sms * 8, 256>>>(f, (long)(2 * l2 / 16), out);
        cudaEventRecord(s);
        if (kind == 1) rd1<<<sms * 8, 256>>>(a, n4, out);
        else if (kind == 4) rd4<<<sms * 8, 256>>>(a, n4, out);
        else rdb<<<(unsigned)((n4 + 1023) / 1024), 256>>>(a, n4, out);
        cudaEventRecord(e); cudaEventSynchronize(e);
        float ms; cudaEventElapsedTime(&ms, s, e); return ms * 1000.0;
    };
    int mult[4] = {2, 4, 8, 16};
    for (int kind : {1, 4, 0}) {
        std::vector<double> times[4];
        for (int i = 0; i < 4; ++i) t(kind, mult[i] * l2 / 16);
        for (int r = 0; r < 15; ++r)
            for (int i = 0; i < 4; ++i) times[i].push_back(t(kind, mult[i] * l2 / 16));
        CK(cudaGetLastError());
        double med[4];
        for (int i = 0; i < 4; ++i) {
            auto v = times[i]; std::sort(v.begin(), v.end()); med[i] = v[v.size() / 2];
            printf("rd%d %2dxL2 %7.1f MB: median %8.2f us (min %8.2f max %8.2f) whole %6.0f GB/s\n", kind, mult[i],
                   mult[i] * l2 / 1e6, med[i], v.front(), v.back(), mult[i] * l2 / (med[i] * 1e3));
        }
        for (int i = 0; i + 1 < 4; ++i)
            printf("rd%d between %2d and %2d x L2: %6.0f GB/s\n", kind, mult[i], mult[i + 1],
                   (mult[i + 1] - mult[i]) * l2 / ((med[i + 1] - med[i]) * 1e3));
        printf("rd%d between  2 and 16 x L2: %6.0f GB/s\n", kind, 14 * l2 / ((med[3] - med[0]) * 1e3));
    }
    return 0;
}
