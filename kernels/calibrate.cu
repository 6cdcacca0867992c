// Calibration microbenchmarks (`warpscope devices --calibrate`, and the start of a measured sweep with
// --model): each measures one figure of the time model on the device itself, all together in well under
// 100 ms. What each figure means and how it enters the model: docs/MODEL.md, "Calibration".
//   calEmpty          launch overhead (1 block) and the block scheduler's rate (many empty blocks)
//   calChainInit      builds the pointer chain calChase follows
//   calChase          DRAM latency on an idle GPU: one thread, each load's address the previous value
//   calRead           reads a buffer with float4 loads, a grid-stride loop of one block wave: evicts L2
//   calReadBlocks     each block reads its own 16 KiB with float4 loads, as many blocks as the buffer needs:
//                     DRAM read bandwidth (2 and 16 x L2, once)
//   calInflight       reads a buffer with one float4 load in flight per thread: DRAM read bandwidth
//                     against the bytes in flight per SM (Little's law, measured), at 1 to 64 warps per SM
//   calRuns           reads or writes a buffer in runs of k contiguous words, the runs in flight together far
//                     apart: DRAM's rate for runs of 32 to 256 bytes against one contiguous pass
//   calRows           reads one float per thread of a matrix of rows 4 or 64 KiB apart, with 1024-thread blocks
//                     from one matrix row (1024x1) to 64 (16x64): how much slower DRAM serves a block whose
//                     loads spread over more rows (a 2D block's), the loads the same
//   calL2Read         re-reads a quarter of L2 with float4 loads that bypass L1 (ld.global.cg): L2's
//                     read bandwidth (plain loads would hit in L1: each thread re-reads its own words)
//   calL1Read         each block re-reads its own 8 KiB with float4 loads: L1 bandwidth per SM
//   calSmemRead       conflict-free shared-memory loads: shared-memory bandwidth per SM
//   calPartialStore   one 4-byte store per sector and line, each sector completed by the 8 warps of a
//                     block: the rate of L2's input port (one cycle per line request, one per sector)
//   calAtomics        every thread adds 1 to words of a footprint of 1 to 2048 lines, a warp's 32 lanes to
//                     one line's 32 words: L2's atomic unit (one sector a clock in the slice holding the
//                     line), and how many slices' worth a footprint's atomics proceed at

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

// Each block of 256 threads reads its own 16 KiB (four float4 a thread, the loads issued together), and the
// grid has as many blocks as the n4 float4 need, handed to whichever SM is free as a kernel's blocks are.
// A grid-stride loop of one block wave (calRead) gives every SM the same share, so it ends with the
// slowest SM and read 3-8 % slower than this on H200s, by an amount that differed between machines.
extern "C" __global__ void calReadBlocks(const float4 *in, int n4, float *out)
{
    int base = blockIdx.x * 1024 + threadIdx.x;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int i = base + k * 256;
        if (i < n4) {
            float4 v = in[i];
            acc += v.x + v.y + v.z + v.w;
        }
    }
    if (acc == 1234.5f) out[blockIdx.x * 256 + threadIdx.x] = acc;
}

// One float4 load in flight per thread: the loop is not unrolled and each load's value is added before the
// next iteration loads, so a launch of w warps per SM keeps w x 512 bytes per SM in flight.
extern "C" __global__ void calInflight(const float4 *in, int n4, float *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int i = tid; i < n4; i += threads) {
        float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) out[tid] = acc;
}

// Word w of the buffer's 2^(logRuns + logK) (grid-stride) is word w mod k of run w / k, which lies at run
// (w / k) x stride mod 2^logRuns: the warps in flight together touch runs of k words far apart from each
// other (stride odd, so every run is visited once, and far from 1). Powers of two keep the index
// arithmetic to a few instructions per word. write = 0 reads (the sum kept), 1 writes.
extern "C" __global__ void calRuns(float *buf, int logRuns, int logK, unsigned stride, int write)
{
    unsigned n = 1u << (logRuns + logK), runMask = (1u << logRuns) - 1, kMask = (1u << logK) - 1;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (unsigned w = tid; w < n; w += threads) {
        unsigned at = ((((w >> logK) * stride) & runMask) << logK) | (w & kMask);
        if (write) buf[at] = 1.0f;
        else acc += buf[at];
    }
    if (!write && acc == 1234.5f) buf[tid] = acc;
}

// One float per thread of an nx x ny matrix at (blockIdx.x x blockDim.x + threadIdx.x, blockIdx.y x
// blockDim.y + threadIdx.y), read once: every block shape of one size reads the same bytes with the same
// instructions, and only the number of matrix rows a block's loads spread over differs. The matrix is
// zeroed, so the store that keeps the load never runs.
extern "C" __global__ void calRows(const float *in, int nx, int ny, float *out)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < nx && iy < ny && in[(size_t)iy * nx + ix] == 1234.5f) out[0] = 1.0f;
}

// calRead with loads cached in L2 only (`__ldcg`): re-reading a buffer that fits in L2 measures L2's read
// bandwidth, not L1's.
extern "C" __global__ void calL2Read(const float4 *in, int n4, int passes, float *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p)
        for (int i = tid; i < n4; i += threads) {
            float4 v = __ldcg(in + i);
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

// Block b's warp k writes word k of 32 sectors, (32 b + lane) x strideWords mod n words in: each warp
// store instruction writes part of 32 sectors in 32 lines (as a naive transpose's strided writes do), and
// the block's 8 warps complete every sector between them. L2 takes each store as 32 line requests of one
// sector: two cycles of its input port per sector written.
extern "C" __global__ void calPartialStore(float *out, unsigned n, unsigned strideWords, int sectors)
{
    int i = blockIdx.x * 32 + (threadIdx.x & 31), k = threadIdx.x >> 5;
    if (i >= sectors || k >= 8) return;
    out[((size_t)i * strideWords) % n + k] = (float)(i + k);
}

// Thread i of the grid adds 1 to word (i + k x threads) mod words for k < loops: each warp one line's 32
// words a time (4 sectors), the grid walking the footprint of `words` (a power of two, 32 or more) line by
// line. Every word ends at loops x threads / words when threads is a multiple of words.
extern "C" __global__ void calAtomics(unsigned *out, unsigned words, unsigned loops)
{
    unsigned threads = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned k = 0; k < loops; ++k) atomicAdd(&out[(i + k * threads) & (words - 1)], 1u);
}
