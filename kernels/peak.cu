// Peak benchmarks (source 000): copies that show what memory bandwidth a kernel can reach, and MAD
// kernels that add N dependent multiply-adds per element to the copy, to find where a kernel turns
// compute bound. One element (pixel) per work item, as in the seed; plus vectorized copies.

// One float per thread.
extern "C" __global__ void copyFloat(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// One float4 per thread (16-byte loads and stores); n is a multiple of 4.
extern "C" __global__ void copyFloat4(const float4 *in, float4 *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}

// Four float4 per thread, strided by the grid, all four loads in flight before the first store.
extern "C" __global__ void copyFloat4x4(const float4 *in, float4 *out, int n4)
{
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (i + k * stride < n4) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (i + k * stride < n4) out[i + k * stride] = v[k];
}

// The copy plus N dependent multiply-adds per element (x = x * a + b, an FFMA each: 2 flops).
template <int N>
__device__ __forceinline__ void mad(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
#pragma unroll
        for (int k = 0; k < N; ++k) x = x * 0.9990234375f + 0.0009765625f;
        out[i] = x;
    }
}

#define MAD(N) \
    extern "C" __global__ void mad##N(const float *in, float *out, int n) { mad<N>(in, out, n); }

MAD(0)
MAD(3)
MAD(6)
MAD(12)
MAD(24)
MAD(48)
MAD(96)
