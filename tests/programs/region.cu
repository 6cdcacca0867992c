// region: the test program of `warpscope nvprof --profile-from-start off`: `work` runs 3 times before
// cudaProfilerStart, `work` 4 times and `other` twice between it and cudaProfilerStop, and `work` twice
// after; a profiler that honours the calls sees 4 + 2 launches and the copies in between only. Results
// are checked on the host.
//   nvcc -O3 -o region region.cu
//   ./region     prints `region: 0 of N wrong` and `launches: NAME COUNT` for the profiled region
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

__global__ void work(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void other(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 3.0f;
}

int main() {
    const int n = 1 << 20;
    float *d, *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 5);
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int r = 0; r < 3; r++) work<<<n / 256, 256>>>(d, n);
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaProfilerStart());
    for (int r = 0; r < 4; r++) work<<<n / 256, 256>>>(d, n);
    for (int r = 0; r < 2; r++) other<<<n / 128, 128>>>(d, n);
    CHECK(cudaMemset(d + n / 2, 0, sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());

    for (int r = 0; r < 2; r++) work<<<n / 256, 256>>>(d, n);
    CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float v = i == n / 2 ? 0.0f : ((float)(i % 5) + 7.0f) * 9.0f;
        if (h[i] != v + 2.0f) bad++;
    }
    printf("region: %d of %d wrong\n", bad, n);
    printf("launches: work 4\nlaunches: other 2\n");
    return bad != 0;
}
