// Does the number of L2 slices a small footprint of atomics spreads over depend on where it sits
// (issue 14, thirty-fifth session; docs/MODEL.md section 37)? 1 KiB footprints (8 lines, a warp's 32
// lanes on one line's 32 words) at 5 places (one 512 bytes off a 1 KiB boundary) in each of 16 separate 2 MiB allocations, and at the start
// of 16 separate 1 KiB allocations: the time of 2 Mi sectors of adds at each; every count checked.
//   nvcc -O3 -arch=sm_90 -o places places.cu && ./places
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void adds(unsigned* bins, unsigned words) {
    unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&bins[gid % words], 1u);
}

static float timed(unsigned* p, unsigned words) {
    const unsigned long long n = 16ull << 20; const int block = 256;
    CK(cudaMemset(p, 0, words * 4));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int i = 0; i < 6; i++) {
        CK(cudaEventRecord(e0)); adds<<<n / block, block>>>(p, words); CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, e0, e1)); if (i) ms.push_back(t);
    }
    std::vector<unsigned> h(words);
    CK(cudaMemcpy(h.data(), p, words * 4, cudaMemcpyDeviceToHost));
    for (unsigned w = 0; w < words; w++) if (h[w] != 6 * n / words) { fprintf(stderr, "error: wrong count\n"); exit(1); }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int main() {
    const unsigned words = 256;
    std::vector<unsigned*> big(16), small(16);
    for (auto& b : big) CK(cudaMalloc(&b, 2 << 20));
    for (auto& s : small) CK(cudaMalloc(&s, 1024));
    for (int i = 0; i < 16; i++) {
        printf("big %2d %p:", i, (void*)big[i]);
        for (size_t off : {0ul, 512ul, 1024ul, 131072ul, 1048576ul}) printf(" +%zu %.4f", off, timed(big[i] + off / 4, words));
        printf("\n");
    }
    for (int i = 0; i < 16; i++) printf("small %2d %p: %.4f\n", i, (void*)small[i], timed(small[i], words));
    return 0;
}
