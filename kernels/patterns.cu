// Access and control patterns from the lectures (sources 002 and 003):
//   matmulCoalesced / matmulStrided   C = A B with consecutive threads on consecutive columns (B and C
//                                     coalesced) or on consecutive rows (strided): the two thread mappings
//   divergeOddEven / divergeWarp      a branch on i % 2 (both paths in every warp) or on i / 32 % 2
//                                     (no warp diverges when blockDim.x is a multiple of 32)
//   aosSum / soaSum                   each thread reads a 40-byte struct of 10 floats: interleaved (array of
//                                     structures, ~10 % useful bytes per request) or field-major (structure
//                                     of arrays)

extern "C" __global__ void matmulCoalesced(const float *A, const float *B, float *C, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= N || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc = fmaf(A[(size_t)row * N + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

extern "C" __global__ void matmulStrided(const float *A, const float *B, float *C, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= N || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc = fmaf(A[(size_t)row * N + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

__device__ __forceinline__ float pathA(float x)
{
#pragma unroll 1
    for (int k = 0; k < 64; ++k) x = fmaf(x, 0.9990234375f, 0.0009765625f);
    return x;
}

__device__ __forceinline__ float pathB(float x)
{
#pragma unroll 1
    for (int k = 0; k < 64; ++k) x = fmaf(x, 1.0009765625f, -0.0009765625f);
    return x;
}

extern "C" __global__ void divergeOddEven(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = (i % 2 == 0) ? pathA(in[i]) : pathB(in[i]);
}

extern "C" __global__ void divergeWarp(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = ((i / 32) % 2 == 0) ? pathA(in[i]) : pathB(in[i]);
}

#define FIELDS 10

extern "C" __global__ void aosSum(const float *s, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) acc += s[(size_t)i * FIELDS + f];
    out[i] = acc;
}

extern "C" __global__ void soaSum(const float *s, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) acc += s[(size_t)f * n + i];
    out[i] = acc;
}
