// graph: the test program of `warpscope nvprof` for CUDA graphs: kernels launched directly, captured
// from a stream into a graph (three kernel nodes), and a hand-built graph holding that one as a child
// graph node plus a kernel node of its own; each executable graph launched several times (the first
// once more after the second was instantiated, when a profiler may have set itself up again). Launches
// captured into a graph run nothing until the graph does, and a profiler must not disturb the capture.
// A third graph holds two kernel nodes on parallel branches (para_a, para_b, each on its own buffer):
// their order is the driver's. Every element of the results is checked against the same steps on the host.
//   nvcc -O3 -o graph graph.cu
//   ./graph      prints `graph: 0 of N wrong`, `launches: NAME COUNT` per kernel of the ordered graphs and
//                `parallel: NAME COUNT` for the parallel one; exits 1 on a mismatch
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

__global__ void inc(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void scale2(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

__global__ void para_a(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 2.0f;
}

__global__ void para_b(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 0.5f;
}

// The captured graph's steps, and the hand-built one's, on the host.
static float captured(float v) { return (v + 1.0f) * 2.0f + 1.0f; }
static float built(float v) { return captured(v) * 2.0f; }

int main() {
    const int n = 1 << 20;
    float *d, *h = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 7);
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    inc<<<n / 256, 256, 0, s>>>(d, n);

    // Captured: inc, scale2, inc (three shapes).
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    inc<<<n / 256, 256, 0, s>>>(d, n);
    scale2<<<n / 128, 128, 0, s>>>(d, n);
    inc<<<n / 512, 512, 0, s>>>(d, n);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 3; r++) CHECK(cudaGraphLaunch(ge, s));

    // Built by hand: the captured graph as a child node, then scale2.
    cudaGraph_t g2;
    cudaGraphNode_t child, k;
    cudaGraphExec_t ge2;
    CHECK(cudaGraphCreate(&g2, 0));
    CHECK(cudaGraphAddChildGraphNode(&child, g2, NULL, 0, g));
    void *args[] = {&d, (void *)&n};
    cudaKernelNodeParams p = {};
    p.func = (void *)scale2;
    p.gridDim = dim3(n / 64);
    p.blockDim = dim3(64);
    p.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k, g2, &child, 1, &p));
    CHECK(cudaGraphInstantiateWithFlags(&ge2, g2, 0));
    for (int r = 0; r < 2; r++) CHECK(cudaGraphLaunch(ge2, s));
    // The first graph once more, after the second was instantiated (a profiler may have set up again).
    CHECK(cudaGraphLaunch(ge, s));

    scale2<<<n / 256, 256, 0, s>>>(d, n);

    // Two kernel nodes with no dependency between them, each on its own buffer.
    float *e1, *e2;
    CHECK(cudaMalloc(&e1, n * sizeof(float)));
    CHECK(cudaMalloc(&e2, n * sizeof(float)));
    CHECK(cudaMemcpy(e1, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(e2, h, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaGraph_t g3;
    cudaGraphNode_t na, nb;
    cudaGraphExec_t ge3;
    CHECK(cudaGraphCreate(&g3, 0));
    void *args_a[] = {&e1, (void *)&n}, *args_b[] = {&e2, (void *)&n};
    cudaKernelNodeParams pa = {}, pb = {};
    pa.func = (void *)para_a;
    pa.gridDim = dim3(n / 256);
    pa.blockDim = dim3(256);
    pa.kernelParams = args_a;
    pb.func = (void *)para_b;
    pb.gridDim = dim3(n / 256);
    pb.blockDim = dim3(256);
    pb.kernelParams = args_b;
    CHECK(cudaGraphAddKernelNode(&na, g3, NULL, 0, &pa));
    CHECK(cudaGraphAddKernelNode(&nb, g3, NULL, 0, &pb));
    CHECK(cudaGraphInstantiate(&ge3, g3, 0));
    CHECK(cudaGraphLaunch(ge3, s));
    CHECK(cudaStreamSynchronize(s));
    int bad = 0;
    CHECK(cudaMemcpy(out, e1, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) bad += out[i] != h[i] + 2.0f;
    CHECK(cudaMemcpy(out, e2, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) bad += out[i] != h[i] * 0.5f;
    CHECK(cudaMemcpy(out, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = h[i] + 1.0f;
        for (int r = 0; r < 3; r++) v = captured(v);
        for (int r = 0; r < 2; r++) v = built(v);
        v = captured(v);
        v *= 2.0f;
        if (out[i] != v) bad++;
    }
    printf("graph: %d of %d wrong\n", bad, n);
    printf("launches: inc %d\nlaunches: scale2 %d\n", 1 + 2 * 3 + 2 * 2 + 2, 3 + 2 * 2 + 1 + 1);
    printf("parallel: para_a 1\nparallel: para_b 1\n");
    CHECK(cudaGraphExecDestroy(ge3));
    CHECK(cudaGraphDestroy(g3));
    CHECK(cudaFree(e1));
    CHECK(cudaFree(e2));
    CHECK(cudaGraphExecDestroy(ge2));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(d));
    return bad != 0;
}
