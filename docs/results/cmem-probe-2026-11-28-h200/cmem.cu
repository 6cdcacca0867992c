// Constant-cache probe: warp-uniform indexed __constant__ loads (LDC) over a working set of W bytes,
// each load a new 64-byte line (stride 16 words) or the same line's words (stride 1), at 1 warp and at
// 64 warps per SM. Prints ns per warp-load per SM (the SM's throughput) and per load of one warp (its
// latency, the loads chained through the index). Every output checked against the host's sum.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#define WORDS 16384
__constant__ unsigned c[WORDS];
__global__ void chase(unsigned *out, int n, int iters, int stride, int chained)
{
    unsigned s = 0, j = 0;
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
        unsigned v = c[j];
        s += v;
        j += stride + (chained ? (v == 0xFFFFFFFFu) : 0);
        if (j >= (unsigned)n) j -= n;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main()
{
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    std::vector<unsigned> h(WORDS);
    for (int i = 0; i < WORDS; ++i) h[i] = i * 2654435761u;
    cudaMemcpyToSymbol(c, h.data(), sizeof(unsigned) * WORDS);
    unsigned *out; cudaMalloc(&out, sizeof(unsigned) * sms * 2048);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    printf("bytes,stride_words,warps_per_sm,ns_per_load_per_sm,ns_per_load_one_warp\n");
    const int iters = 8192;
    for (int bytes = 256; bytes <= 65536; bytes *= 2) {
        int n = bytes / 4;
        for (int stride : {1, 16}) {
            if (stride >= n) continue;
            double r[2];
            int cfg[2][2] = {{sms, 32}, {sms * 8, 256}};
            for (int k = 0; k < 2; ++k) {
                int blocks = cfg[k][0], threads = cfg[k][1];
                chase<<<blocks, threads>>>(out, n, iters, stride, 1);
                cudaEventRecord(a);
                for (int rep = 0; rep < 3; ++rep) chase<<<blocks, threads>>>(out, n, iters, stride, 1);
                cudaEventRecord(b); cudaEventSynchronize(b);
                float ms; cudaEventElapsedTime(&ms, a, b);
                if (cudaGetLastError() != cudaSuccess) { fprintf(stderr, "error: launch failed\n"); return 1; }
                std::vector<unsigned> got(blocks * threads);
                cudaMemcpy(got.data(), out, sizeof(unsigned) * got.size(), cudaMemcpyDeviceToHost);
                unsigned s = 0, j = 0;
                for (int i = 0; i < iters; ++i) { s += h[j]; j += stride + (h[j] == 0xFFFFFFFFu); if (j >= (unsigned)n) j -= n; }
                for (unsigned g : got) if (g != s) { fprintf(stderr, "error: wrong sum\n"); return 1; }
                double loads_per_sm = (double)blocks * threads / 32 / sms * iters;
                r[k] = ms / 3 * 1e6 / (k == 0 ? iters : loads_per_sm);
            }
            printf("%d,%d,64,%.3f,%.3f\n", bytes, stride, r[1], r[0]);
        }
    }
    printf("# every sum right (%d SMs)\n", sms);
}
