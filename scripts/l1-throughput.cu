// How many clocks does the L1 take per warp-wide global load, by its pattern, when it is the only limit?
// (docs/MODEL.md section 20.) Every block re-reads its own 32 KiB window (in L1 after a first touch),
// each warp issuing 8 independent loads per step for `iters` steps, all blocks resident at once; the
// SM clocks of the timed loops (clock64, between two barriers; from the SM's first block's start to its
// last block's end) over the requests the SM served give clocks per request. Loads alternate between two patterns A and B (the same pattern twice for one):
// lanes `s` elements apart in `rows` groups `pitch` elements apart (wrapping within 16 KiB), elements of
// `width` 4-byte words, each load of a step a line after the one before (the same banks), each step 8
// lines on (wrapping every 8 steps). Configurations on stdin, one per line:
//   sA rowsA pitchA widthA sB rowsB pitchB widthB blocks_per_sm
// Prints one CSV line per configuration; every thread's sum of the words it read is checked on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define WINDOW 8192 // words per block
#define SPAN 4096   // words a pattern's lanes spread over (offsets wrap within it)
#define SHIFTS 2048 // words the steps move through
#define STEP_LOADS 8

struct Pattern {
    int s, rows, pitch, width;
};

__host__ __device__ inline unsigned element(Pattern p, int lane, int k)
{
    // Element index within the window (in elements of p.width words) of load k of a step for a lane.
    int per = 32 / p.rows;
    unsigned e = (unsigned)((lane / per) * p.pitch + (lane % per) * p.s) + (unsigned)k * (32u / p.width);
    return e & (SPAN / p.width - 1);
}

// One load that the compiler can neither hoist out of the loop nor merge (it is the same every step).
template <int W>
__device__ inline unsigned load_sum(const unsigned *w)
{
    unsigned x, y, z, q;
    if (W == 1) {
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(w));
        return x;
    }
    if (W == 2) {
        asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(w));
        return x + y;
    }
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(q) : "l"(w));
    return x + y + z + q;
}

// The loads of step i move `shift(i)` words on (8 lines a step, wrapping every 8 steps), so that no
// load is loop-invariant (ptxas would hoist it) and each step reads new lines of the window.
__host__ __device__ inline unsigned shift(int i) { return (unsigned)(i * 256) & (SHIFTS - 1); }

template <int WA, int WB>
__global__ void __launch_bounds__(256, 8) rate(const unsigned *in, unsigned *out, Pattern a, Pattern b, int iters, long long *cycles)
{
    const unsigned *w = in + (size_t)blockIdx.x * WINDOW;
    int lane = threadIdx.x % 32;
    // Loads 0, 2, 4, 6 follow A and 1, 3, 5, 7 follow B; load k lies k lines after the pattern's start.
    const unsigned *pa = w + (size_t)element(a, lane, 0) * a.width;
    const unsigned *pb = w + (size_t)element(b, lane, 1) * b.width;
    // First touch: every line the loads will read into L1.
    unsigned acc[STEP_LOADS] = {0};
    for (int i = threadIdx.x; i < WINDOW; i += blockDim.x) acc[0] += w[i];
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
        unsigned sh = shift(i);
        const unsigned *qa = pa + sh, *qb = pb + sh;
#pragma unroll
        for (int j = 0; j < STEP_LOADS; j += 2) {
            acc[j] += load_sum<WA>(qa + j * 32);
            acc[j + 1] += load_sum<WB>(qb + (j * 32));
        }
    }
    __syncthreads();
    long long t1 = clock64();
    unsigned sum = 0;
#pragma unroll
    for (int j = 0; j < STEP_LOADS; ++j) sum += acc[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        cycles[3 * blockIdx.x] = t0;
        cycles[3 * blockIdx.x + 1] = t1;
        cycles[3 * blockIdx.x + 2] = sm;
    }
}

typedef void (*Kernel)(const unsigned *, unsigned *, Pattern, Pattern, int, long long *);

static Kernel kernel_for(int wa, int wb)
{
    if (wa == 1 && wb == 1) return rate<1, 1>;
    if (wa == 2 && wb == 2) return rate<2, 2>;
    if (wa == 4 && wb == 4) return rate<4, 4>;
    if (wa == 1 && wb == 4) return rate<1, 4>;
    return nullptr;
}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    return e != cudaSuccess;
}

static unsigned expected(unsigned block, int t, int threads, Pattern a, Pattern b, int iters)
{
    unsigned base = block * WINDOW, sum = 0;
    for (int i = t; i < WINDOW; i += threads) sum += base + i;
    int lane = t % 32;
    unsigned shifts = 0;
    for (int i = 0; i < iters; ++i) shifts += shift(i);
    for (int k = 0; k < STEP_LOADS; ++k) {
        Pattern p = (k & 1) ? b : a;
        // Load k of a step: the pattern's start (load 0 or 1) plus k rounded down to even lines.
        unsigned e0 = element(p, lane, k & 1), one = 0;
        for (int q = 0; q < p.width; ++q) one += base + e0 * p.width + (k & ~1) * 32 + q;
        sum += one * (unsigned)iters + shifts * (unsigned)p.width;
    }
    return sum;
}

int main()
{
    int dev = 0, sms = 0;
    if (check(cudaGetDevice(&dev), "cudaGetDevice") ||
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count"))
        return 1;
    const int threads = 256, iters = 1024, max_blocks = 8;
    size_t words = (size_t)sms * max_blocks * WINDOW;
    unsigned *in, *out;
    long long *cycles;
    if (check(cudaMalloc(&in, words * 4), "cudaMalloc") ||
        check(cudaMalloc(&out, (size_t)sms * max_blocks * threads * 4), "cudaMalloc") ||
        check(cudaMalloc(&cycles, (size_t)sms * max_blocks * 3 * 8), "cudaMalloc"))
        return 1;
    std::vector<unsigned> host(words);
    for (size_t i = 0; i < words; ++i) host[i] = (unsigned)i;
    if (check(cudaMemcpy(in, host.data(), words * 4, cudaMemcpyHostToDevice), "upload")) return 1;
    printf("sA,rowsA,pitchA,widthA,sB,rowsB,pitchB,widthB,blocks_per_sm,warps_per_sm,clocks_per_request,spread\n");
    Pattern a, b;
    int bps, configs = 0;
    while (scanf("%d %d %d %d %d %d %d %d %d", &a.s, &a.rows, &a.pitch, &a.width, &b.s, &b.rows, &b.pitch, &b.width,
                 &bps) == 9) {
        Kernel k = kernel_for(a.width, b.width);
        int fit = 0;
        if (!k) {
            fprintf(stderr, "error: widths %d and %d: no kernel\n", a.width, b.width);
            return 1;
        }
        // As much L1 as the SM has (no shared memory): the windows of 8 blocks are 256 KiB, of which
        // each pattern touches at most 24 KiB.
        if (check(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 0), "carveout") ||
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, threads, 0), "occupancy"))
            return 1;
        if (bps > fit || bps > max_blocks) {
            fprintf(stderr, "error: %d blocks per SM asked, %d fit\n", bps, fit);
            return 1;
        }
        int blocks = sms * bps;
        std::vector<double> per;
        std::vector<long long> cyc(3 * blocks);
        std::vector<unsigned> got((size_t)blocks * threads);
        for (int rep = 0; rep < 5; ++rep) {
            if (check(cudaMemset(out, 0xff, (size_t)blocks * threads * 4), "poison")) return 1;
            k<<<blocks, threads>>>(in, out, a, b, iters, cycles);
            if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "rate")) return 1;
            if (check(cudaMemcpy(cyc.data(), cycles, cyc.size() * 8, cudaMemcpyDeviceToHost), "cycles")) return 1;
            // Each SM's busy window (clock64 counts per SM): its first block's start to its last block's
            // end, over the requests its blocks made; the median SM.
            std::vector<long long> first(sms, -1), last(sms, -1);
            std::vector<int> count(sms, 0);
            for (int blk = 0; blk < blocks; ++blk) {
                long long t0 = cyc[3 * blk], t1 = cyc[3 * blk + 1];
                int sm = (int)cyc[3 * blk + 2];
                if (sm < 0 || sm >= sms) {
                    fprintf(stderr, "error: block %d ran on SM %d of %d\n", blk, sm, sms);
                    return 1;
                }
                first[sm] = first[sm] < 0 ? t0 : std::min(first[sm], t0);
                last[sm] = std::max(last[sm], t1);
                ++count[sm];
            }
            std::vector<double> rates;
            for (int sm = 0; sm < sms; ++sm)
                if (count[sm] > 0)
                    rates.push_back((double)(last[sm] - first[sm]) /
                                    ((double)count[sm] * (threads / 32) * iters * STEP_LOADS));
            std::sort(rates.begin(), rates.end());
            per.push_back(rates[rates.size() / 2]);
        }
        if (check(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost), "out")) return 1;
        for (int blk = 0; blk < blocks; ++blk)
            for (int t = 0; t < threads; ++t)
                if (got[(size_t)blk * threads + t] != expected(blk, t, threads, a, b, iters)) {
                    fprintf(stderr, "error: block %d thread %d summed %u, expected %u\n", blk, t,
                            got[(size_t)blk * threads + t], expected(blk, t, threads, a, b, iters));
                    return 1;
                }
        std::sort(per.begin(), per.end());
        printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f\n", a.s, a.rows, a.pitch, a.width, b.s, b.rows, b.pitch,
               b.width, bps, bps * threads / 32, per[2], per[4] - per[0]);
        fflush(stdout);
        ++configs;
    }
    printf("# %d configurations, every thread's sum right (%d SMs)\n", configs, sms);
    return 0;
}
