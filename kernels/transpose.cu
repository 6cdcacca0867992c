// Matrix transposes (source 000's case study, source 002's lecture): out (W rows of H) = in (H rows of W)
// transposed, out[x * H + y] = in[y * W + x]. From the naive copy-transpose to tiles in shared memory,
// the seed's skewed (diagonal) block order, padded tiles without bank conflicts, and a 64x64 tile with
// 8-byte accesses that keeps more bytes in flight.

extern "C" __global__ void transposeNaive(const float *in, float *out, int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H) out[(size_t)x * H + y] = in[(size_t)y * W + x];
}

// transposeL / transposeLS (the seed's OpenCL names): a 16x16 tile staged in shared memory, unpadded;
// LS walks the blocks diagonally (by = (by + bx) % gridDim.y) so that concurrent blocks spread over DRAM.
template <bool Diagonal>
__device__ __forceinline__ void tile16(const float *in, float *out, int W, int H)
{
    __shared__ float tile[16][16];
    int bx = blockIdx.x;
    int by = Diagonal ? (blockIdx.y + blockIdx.x) % gridDim.y : blockIdx.y;
    int x = bx * 16 + threadIdx.x, y = by * 16 + threadIdx.y;
    if (x < W && y < H) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * W + x];
    __syncthreads();
    int ox = by * 16 + threadIdx.x, oy = bx * 16 + threadIdx.y;
    if (ox < H && oy < W) out[(size_t)oy * H + ox] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void transposeL(const float *in, float *out, int W, int H) { tile16<false>(in, out, W, H); }
extern "C" __global__ void transposeLS(const float *in, float *out, int W, int H) { tile16<true>(in, out, W, H); }

// A tile of blockDim.x x blockDim.x, padded by one column (no bank conflicts), in dynamic shared memory;
// each thread moves blockDim.x / blockDim.y rows. The classic is 32x8 threads on a 32x32 tile.
template <bool Diagonal>
__device__ __forceinline__ void tiled(const float *in, float *out, int W, int H)
{
    extern __shared__ float tile[];
    const int T = blockDim.x, P = T + 1;
    int bx = blockIdx.x;
    int by = Diagonal ? (blockIdx.y + blockIdx.x) % gridDim.y : blockIdx.y;
    int x = bx * T + threadIdx.x;
    for (int r = threadIdx.y; r < T; r += blockDim.y) {
        int y = by * T + r;
        if (x < W && y < H) tile[r * P + threadIdx.x] = in[(size_t)y * W + x];
    }
    __syncthreads();
    int ox = by * T + threadIdx.x;
    for (int r = threadIdx.y; r < T; r += blockDim.y) {
        int oy = bx * T + r;
        if (ox < H && oy < W) out[(size_t)oy * H + ox] = tile[threadIdx.x * P + r];
    }
}

extern "C" __global__ void transposeShared(const float *in, float *out, int W, int H) { tiled<false>(in, out, W, H); }
extern "C" __global__ void transposeSharedDiag(const float *in, float *out, int W, int H) { tiled<true>(in, out, W, H); }

// 64x64 tile, 32x8 threads, float2 loads and stores: 16 elements per thread, eight 8-byte loads in
// flight per thread before the barrier. W and H must be multiples of 64.
extern "C" __global__ void transposeTile64(const float *in, float *out, int W, int H)
{
    __shared__ float tile[64][65];
    int x = blockIdx.x * 64 + 2 * threadIdx.x;
    float2 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        int y = blockIdx.y * 64 + threadIdx.y + 8 * k;
        v[k] = *reinterpret_cast<const float2 *>(in + (size_t)y * W + x);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        int r = threadIdx.y + 8 * k;
        tile[r][2 * threadIdx.x] = v[k].x;
        tile[r][2 * threadIdx.x + 1] = v[k].y;
    }
    __syncthreads();
    int ox = blockIdx.y * 64 + 2 * threadIdx.x;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        int r = threadIdx.y + 8 * k;
        int oy = blockIdx.x * 64 + r;
        float2 w = make_float2(tile[2 * threadIdx.x][r], tile[2 * threadIdx.x + 1][r]);
        *reinterpret_cast<float2 *>(out + (size_t)oy * H + ox) = w;
    }
}
