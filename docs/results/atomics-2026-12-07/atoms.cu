// L2's atomic rate by footprint (issue 14, thirty-fourth session; docs/MODEL.md section 36): 16 Mi
// `red.global.add.u32` over a footprint of F bytes. MODE 0: a warp's 32 lanes add to 32 consecutive
// words (4 sectors, one line), the warps of the grid walking the footprint line by line; MODE 1: the 32
// lanes of a warp add to one word (one sector, 32 operations). Every word's count is checked.
//   nvcc -O3 -arch=sm_90 -o atoms atoms.cu && ./atoms F MODE
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__host__ __device__ inline unsigned word(unsigned long long gid, unsigned words, int mode) {
    return mode ? (unsigned)((gid / 32) % words) : (unsigned)(gid % words);
}

__global__ void atoms(unsigned* bins, unsigned words, int mode) {
    unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&bins[word(gid, words, mode)], 1u);
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: atoms F MODE\n"); return 2; }
    long F = atol(argv[1]); int mode = atoi(argv[2]);
    if (F < 4 || F % 128 || (mode != 0 && mode != 1)) { fprintf(stderr, "error: F a multiple of 128 bytes, MODE 0 or 1\n"); return 2; }
    unsigned words = (unsigned)(F / 4);
    const unsigned long long n = 16ull << 20; const int block = 256;
    unsigned* bins; CK(cudaMalloc(&bins, F));
    CK(cudaMemset(bins, 0, F));
    atoms<<<n / block, block>>>(bins, words, mode);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<unsigned> h(words), want(words, 0);
    CK(cudaMemcpy(h.data(), bins, F, cudaMemcpyDeviceToHost));
    for (unsigned long long g = 0; g < n; g++) want[word(g, words, mode)]++;
    size_t bad = 0; for (unsigned i = 0; i < words; i++) bad += h[i] != want[i];
    if (bad) { fprintf(stderr, "error: F=%ld mode=%d: %zu wrong counts\n", F, mode, bad); return 1; }
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int i = 0; i < 15; i++) {
        CK(cudaEventRecord(e0)); atoms<<<n / block, block>>>(bins, words, mode); CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, e0, e1)); if (i >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("F=%ld mode=%d ops=%llu verified median_ms=%.4f min_ms=%.4f max_ms=%.4f\n", F, mode, n, ms[ms.size() / 2], ms.front(), ms.back());
    return 0;
}
