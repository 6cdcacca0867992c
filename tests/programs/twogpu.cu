// twogpu: the test program of `warpscope nvprof` for a program that uses two GPUs: `fill0` 3 times on
// device 0, `fill1` 6 times on device 1, then a graph captured on device 1 (one `gk` node) launched
// twice; every element is checked. With fewer than two GPUs it says so and exits 0.
//   nvcc -O3 -o twogpu twogpu.cu
//   ./twogpu     prints `twogpu: 0 of N wrong` and `launches: NAME DEVICE COUNT` per kernel
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

__global__ void fill0(float *x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

__global__ void fill1(float *x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.5f + v;
}

__global__ void gk(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        printf("twogpu: needs 2 GPUs, found %d\n", count);
        return 0;
    }
    const int n = 1 << 20;
    float *d0, *d1, *h = (float *)malloc(n * sizeof(float));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0, n * sizeof(float)));
    for (int r = 0; r < 3; r++) fill0<<<n / 256, 256>>>(d0, n, (float)r);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&d1, n * sizeof(float)));
    CHECK(cudaMemset(d1, 0, n * sizeof(float)));
    for (int r = 0; r < 6; r++) fill1<<<n / 128, 128>>>(d1, n, (float)r);
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    gk<<<n / 512, 512, 0, s>>>(d1, n);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 2; r++) CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    int bad = 0;
    CHECK(cudaMemcpy(h, d1, n * sizeof(float), cudaMemcpyDeviceToHost));
    float want1 = 0.0f;
    for (int r = 0; r < 6; r++) want1 = want1 * 0.5f + (float)r;
    for (int i = 0; i < n; i++) bad += h[i] != want1 + 2.0f;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(h, d0, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) bad += h[i] != 2.0f;
    printf("twogpu: %d of %d wrong\n", bad, 2 * n);
    printf("launches: fill0 0 3\nlaunches: fill1 1 6\nlaunches: gk 1 2\n");
    CHECK(cudaFree(d0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(d1));
    return bad != 0;
}
