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
// `l1-throughput misses` runs matmul's pair of loads instead (see shared_lines), configurations
// "fresh threads blocks_per_sm".
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <string>

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

// After the timed loop: every thread's sum of what it read, and the block's clocks and SM.
__device__ inline void finish(const unsigned *acc, long long t0, unsigned *out, long long *cycles)
{
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
    finish(acc, t0, out, cycles);
}

// The `misses` mode: matmul's two loads. Each warp reads a broadcast word of its own line (A: an L1 hit)
// and each lane a word of a line the block's warps share (B: a new line every load). B's lines come from
// a 256 KiB region per block (`fresh`: more than the SM's L1 holds for its blocks, so misses that L2
// serves, two laps) or from the block's L1 window (hits), so that the cost of misses, and of warps
// waiting on one missed line, shows against the same loads hitting.
#define REGION 65536 // words
#define REGIONS 8

__global__ void __launch_bounds__(1024, 2)
shared_lines(const unsigned *in, const unsigned *stream, unsigned *out, int fresh, int windows, int iters, long long *cycles)
{
    const unsigned *w = in + (size_t)(blockIdx.x % windows) * WINDOW;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned *pa = w + warp * 32;
    const unsigned *pb = fresh ? stream + (size_t)(blockIdx.x % REGIONS) * REGION : w + 4096;
    unsigned mask = fresh ? REGION - 1 : 2047;
    unsigned acc[STEP_LOADS] = {0};
    for (int i = threadIdx.x; i < WINDOW; i += blockDim.x) acc[0] += w[i];
    __syncthreads();
    long long t0 = clock64();
    // Load k = 4 i + j / 2 of each kind: A's word k mod 32 of the warp's line, B's line k (mod the region
    // or window); a step's four stay within one wrap, so that they are immediate offsets of two pointers.
    for (int i = 0; i < iters; ++i) {
        const unsigned *qa = pa + ((unsigned)(i * 4) & 31), *qb = pb + lane + ((unsigned)(i * 128) & mask);
#pragma unroll
        for (int j = 0; j < STEP_LOADS; j += 2) {
            acc[j] += load_sum<1>(qa + j / 2);
            acc[j + 1] += load_sum<1>(qb + j / 2 * 32);
        }
    }
    finish(acc, t0, out, cycles);
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

// Clocks per request of the median SM: each SM's busy window (clock64 counts per SM), from its first
// block's start to its last block's end, over the requests its blocks made. -1 when a block reports an
// SM out of range.
static double sm_rate(const std::vector<long long> &cyc, int blocks, int sms, double requests_per_block)
{
    std::vector<long long> first(sms, -1), last(sms, -1);
    std::vector<int> count(sms, 0);
    for (int blk = 0; blk < blocks; ++blk) {
        long long t0 = cyc[3 * blk], t1 = cyc[3 * blk + 1];
        int sm = (int)cyc[3 * blk + 2];
        if (sm < 0 || sm >= sms) {
            fprintf(stderr, "error: block %d ran on SM %d of %d\n", blk, sm, sms);
            return -1;
        }
        first[sm] = first[sm] < 0 ? t0 : std::min(first[sm], t0);
        last[sm] = std::max(last[sm], t1);
        ++count[sm];
    }
    std::vector<double> rates;
    for (int sm = 0; sm < sms; ++sm)
        if (count[sm] > 0) rates.push_back((double)(last[sm] - first[sm]) / (count[sm] * requests_per_block));
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

// Five launches of a configuration, each on a poisoned output: clocks per request of the median SM
// of each into `per`. Non-zero on a CUDA error.
template <class Launch>
static int timed(int blocks, int threads, int sms, int iters, unsigned *out, long long *cycles,
                 std::vector<double> &per, Launch launch)
{
    std::vector<long long> cyc(3 * blocks);
    for (int rep = 0; rep < 5; ++rep) {
        if (check(cudaMemset(out, 0xff, (size_t)blocks * threads * 4), "poison")) return 1;
        launch();
        if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernel")) return 1;
        if (check(cudaMemcpy(cyc.data(), cycles, cyc.size() * 8, cudaMemcpyDeviceToHost), "cycles")) return 1;
        double r = sm_rate(cyc, blocks, sms, (double)(threads / 32) * iters * STEP_LOADS);
        if (r < 0) return 1;
        per.push_back(r);
    }
    return 0;
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

// The `misses` mode: configurations "fresh threads blocks_per_sm" on stdin.
static int misses(int sms)
{
    const int iters = 1024, steps = iters * STEP_LOADS / 2, windows = sms * 8, max_threads = 2048 * sms;
    unsigned *in, *stream, *out;
    long long *cycles;
    size_t words = (size_t)windows * WINDOW, stream_words = (size_t)REGIONS * REGION;
    if (check(cudaMalloc(&in, words * 4), "cudaMalloc") || check(cudaMalloc(&stream, stream_words * 4), "cudaMalloc") ||
        check(cudaMalloc(&out, (size_t)max_threads * 4), "cudaMalloc") ||
        check(cudaMalloc(&cycles, (size_t)max_threads / 32 * 3 * 8), "cudaMalloc"))
        return 1;
    std::vector<unsigned> host(std::max(words, stream_words));
    for (size_t i = 0; i < host.size(); ++i) host[i] = (unsigned)i;
    if (check(cudaMemcpy(in, host.data(), words * 4, cudaMemcpyHostToDevice), "upload") ||
        check(cudaMemcpy(stream, host.data(), stream_words * 4, cudaMemcpyHostToDevice), "upload"))
        return 1;
    // Shared memory for the 1 KiB each block reserves (16 blocks), the rest L1.
    if (check(cudaFuncSetAttribute(shared_lines, cudaFuncAttributePreferredSharedMemoryCarveout, 10), "carveout")) return 1;
    // Each thread's sum by parts: A's words relative to the window, B's relative to its region or window.
    std::vector<unsigned> sa(32, 0), sb_fresh(32, 0), sb_hit(32, 0);
    for (int k = 0; k < steps; ++k)
        for (int l = 0; l < 32; ++l) {
            sa[l] += l * 32 + (k & 31);
            sb_fresh[l] += ((unsigned)k * 32 + l) & (REGION - 1);
            sb_hit[l] += ((unsigned)k * 32 + l) & 2047;
        }
    printf("fresh,threads,blocks_per_sm,warps_per_sm,clocks_per_request,spread\n");
    int fresh, threads, bps, configs = 0;
    while (scanf("%d %d %d", &fresh, &threads, &bps) == 3) {
        int fit = 0;
        if (check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, shared_lines, threads, 0), "occupancy")) return 1;
        if (bps > fit || threads % 32 || threads > 1024) {
            fprintf(stderr, "error: %d blocks of %d threads per SM asked, %d fit\n", bps, threads, fit);
            return 1;
        }
        int blocks = sms * bps;
        std::vector<double> per;
        std::vector<unsigned> got((size_t)blocks * threads);
        if (timed(blocks, threads, sms, iters, out, cycles, per, [&] {
                shared_lines<<<blocks, threads>>>(in, stream, out, fresh, windows, iters, cycles);
            }))
            return 1;
        if (check(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost), "out")) return 1;
        for (int blk = 0; blk < blocks; ++blk) {
            unsigned wbase = (unsigned)(blk % windows) * WINDOW, rbase = (unsigned)(blk % REGIONS) * REGION;
            for (int t = 0; t < threads; ++t) {
                unsigned want = 0;
                for (int i = t; i < WINDOW; i += threads) want += wbase + i;
                int warp = t / 32, lane = t % 32;
                want += (unsigned)steps * wbase + sa[warp];
                want += fresh ? (unsigned)steps * rbase + sb_fresh[lane] : (unsigned)steps * (wbase + 4096) + sb_hit[lane];
                if (got[(size_t)blk * threads + t] != want) {
                    fprintf(stderr, "error: block %d thread %d summed %u, expected %u\n", blk, t,
                            got[(size_t)blk * threads + t], want);
                    return 1;
                }
            }
        }
        std::sort(per.begin(), per.end());
        printf("%d,%d,%d,%d,%.4f,%.4f\n", fresh, threads, bps, bps * threads / 32, per[2], per[4] - per[0]);
        fflush(stdout);
        ++configs;
    }
    printf("# %d configurations, every thread's sum right (%d SMs)\n", configs, sms);
    return 0;
}

int main(int argc, char **argv)
{
    int dev = 0, sms = 0;
    if (check(cudaGetDevice(&dev), "cudaGetDevice") ||
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count"))
        return 1;
    if (argc > 1 && std::string(argv[1]) == "misses") return misses(sms);
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
        std::vector<unsigned> got((size_t)blocks * threads);
        if (timed(blocks, threads, sms, iters, out, cycles, per, [&] { k<<<blocks, threads>>>(in, out, a, b, iters, cycles); }))
            return 1;
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
