// Calibration microbenchmarks (`warpscope devices --calibrate`, and the start of a measured sweep with
// --model): each measures one figure of the time model on the device itself, all together in well under
// 100 ms. What each figure means and how it enters the model: docs/MODEL.md, "Calibration".
//   calEmpty          launch overhead (1 block) and the block scheduler's rate (many empty blocks)
//   calChainInit      builds the pointer chain calChase follows
//   calChase          DRAM latency on an idle GPU: one thread, each load's address the previous value
//   calRead           reads a buffer with float4 loads: DRAM read bandwidth (4 x L2, once) and L2
//                     bandwidth (a quarter of L2, over and over)
//   calL1Read         each block re-reads its own 8 KiB with float4 loads: L1 bandwidth per SM
//   calSmemRead       conflict-free shared-memory loads: shared-memory bandwidth per SM
//   calPartialStore   8 stores of 4 bytes per 32-byte sector, sectors far apart: L2's rate for
//                     partial-sector stores

// `write` is 0 at run time: the store is there so that the compiler keeps the kernel's body.
extern "C" __global__ void calEmpty(int *out, int write)
{
    if (write) out[blockIdx.x] = threadIdx.x;
}

// next[i] = (i + stride) mod n: a chain whose hops land `stride` words apart (a new DRAM page and L2 set
// each time).
extern "C" __global__ void calChainInit(unsigned *next, unsigned n, unsigned stride)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        next[i] = (unsigned)((i + stride) % n);
}

extern "C" __global__ void calChase(const unsigned *next, unsigned start, int steps, unsigned *out)
{
    unsigned j = start;
    for (int k = 0; k < steps; ++k) j = next[j];
    out[0] = j;
}

// Every thread walks the buffer (n4 float4) from its own offset, `passes` times; the sum is stored so
// that the loads are kept.
extern "C" __global__ void calRead(const float4 *in, int n4, int passes, float *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p)
        for (int i = tid; i < n4; i += threads) {
            float4 v = in[i];
            acc += v.x + v.y + v.z + v.w;
        }
    if (acc == 1234.5f) out[tid] = acc;
}

// Each block re-reads its own 8 KiB window (512 float4: in L1 after the first pass) `passes` times.
extern "C" __global__ void calL1Read(const float4 *in, int passes, float *out)
{
    const float4 *w = in + (size_t)blockIdx.x * 512;
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p)
#pragma unroll 4
        for (int i = threadIdx.x; i < 512; i += blockDim.x) {
            float4 v = w[i];
            acc += v.x + v.y + v.z + v.w;
        }
    if (acc == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 4-byte loads of consecutive words by consecutive threads: one bank pass per warp instruction.
extern "C" __global__ void calSmemRead(int passes, float *out)
{
    __shared__ float s[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p)
#pragma unroll 8
        for (int k = 0; k < 2048; k += 256) acc += s[(k + threadIdx.x + p) & 2047];
    if (acc == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Thread i fills one 32-byte sector, (i * strideWords) mod n words in, with 8 separate 4-byte stores: each
// warp store instruction writes part of 32 sectors in 32 lines (as a transpose's strided writes do), and
// L2 completes every sector over the 8 instructions.
extern "C" __global__ void calPartialStore(float *out, unsigned n, unsigned strideWords, int sectors)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= sectors) return;
    float *sector = out + ((size_t)i * strideWords) % n;
#pragma unroll
    for (int k = 0; k < 8; ++k) sector[k] = (float)(i + k);
}
