// Do big blocks lose their SM's warp slots while their last warps finish? (docs/MODEL.md section 20.)
// copyFloat's shape of work, one float per thread over 64 Mi elements, at block sizes from 64 to 1024
// threads: each warp's lane 0 records clock64 when the warp starts and when its load has returned (at
// its store), with the SM it ran on. From them, per block: the warp slots the block held idle — every
// warp's time from its own end to the block's last warp's end — over the slot time the block held
// (its warps' count times its first start to its last end). Prints, per block size: the kernel's time
// (CUDA events, median of 5 after a warm-up), the mean warp life, the block's life, and the idle share.
// Every output element is checked.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

extern "C" __global__ void copy_life(const float *in, float *out, long long *life, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    long long t0 = clock64();
    float v = i < n ? in[i] : 0.0f;
    if (i < n) out[i] = v;
    // The clock read after the load has returned: both reads are predicated on a test of the value, so
    // that neither can issue before it.
    long long t1;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.f32 p, %1, 0f449A5000;\n\t@p mov.u64 %0, %%clock64;\n\t"
                 "@!p mov.u64 %0, %%clock64;\n\t}"
                 : "=l"(t1)
                 : "f"(v));
    if (threadIdx.x % 32 == 0 && i < n) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        size_t w = i / 32;
        life[3 * w] = t0;
        life[3 * w + 1] = t1;
        life[3 * w + 2] = sm;
    }
}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    return e != cudaSuccess;
}

int main()
{
    const size_t n = (size_t)1 << 26, warps = n / 32;
    float *in, *out;
    long long *life;
    if (check(cudaMalloc(&in, n * 4), "cudaMalloc") || check(cudaMalloc(&out, n * 4), "cudaMalloc") ||
        check(cudaMalloc(&life, warps * 3 * 8), "cudaMalloc"))
        return 1;
    std::vector<float> host(n);
    for (size_t i = 0; i < n; ++i) host[i] = (float)(i % 1000003);
    if (check(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice), "upload")) return 1;
    cudaEvent_t a, b;
    if (check(cudaEventCreate(&a), "event") || check(cudaEventCreate(&b), "event")) return 1;
    std::vector<long long> lf(warps * 3);
    std::vector<float> got(n);
    printf("threads,ms,warp_life_clk,block_life_clk,idle_share\n");
    for (int threads : {64, 128, 256, 384, 512, 768, 1024}) {
        unsigned blocks = (unsigned)((n + threads - 1) / threads);
        std::vector<float> ms;
        for (int rep = 0; rep < 6; ++rep) {
            if (check(cudaMemset(out, 0xff, n * 4), "poison")) return 1;
            if (check(cudaEventRecord(a), "record")) return 1;
            copy_life<<<blocks, threads>>>(in, out, life, n);
            if (check(cudaGetLastError(), "launch") || check(cudaEventRecord(b), "record") ||
                check(cudaEventSynchronize(b), "copy_life"))
                return 1;
            float t;
            if (check(cudaEventElapsedTime(&t, a, b), "elapsed")) return 1;
            if (rep > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        if (check(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost), "out") ||
            check(cudaMemcpy(lf.data(), life, lf.size() * 8, cudaMemcpyDeviceToHost), "life"))
            return 1;
        for (size_t i = 0; i < n; ++i)
            if (got[i] != host[i]) {
                fprintf(stderr, "error: element %zu is %g, expected %g\n", i, got[i], host[i]);
                return 1;
            }
        // Per block (the clocks of one SM are comparable): idle slot time over held slot time.
        int wpb = threads / 32;
        double idle = 0, held = 0, warp_life = 0, block_life = 0;
        for (size_t blk = 0; blk < blocks; ++blk) {
            long long first = -1, last = -1;
            int held_warps = (int)std::min<size_t>(wpb, warps - blk * wpb);
            for (int k = 0; k < held_warps; ++k) {
                size_t w = blk * wpb + k;
                first = first < 0 ? lf[3 * w] : std::min(first, lf[3 * w]);
                last = std::max(last, lf[3 * w + 1]);
                if (lf[3 * w + 2] != lf[3 * blk * wpb + 2]) {
                    fprintf(stderr, "error: block %zu's warps on SMs %lld and %lld\n", blk, lf[3 * w + 2],
                            lf[3 * blk * wpb + 2]);
                    return 1;
                }
            }
            for (int k = 0; k < held_warps; ++k) {
                size_t w = blk * wpb + k;
                idle += last - lf[3 * w + 1];
                warp_life += lf[3 * w + 1] - lf[3 * w];
            }
            held += (double)held_warps * (last - first);
            block_life += last - first;
        }
        printf("%d,%.4f,%.0f,%.0f,%.4f\n", threads, ms[ms.size() / 2], warp_life / warps, block_life / blocks,
               idle / held);
        fflush(stdout);
    }
    printf("# every output element right\n");
    return 0;
}
