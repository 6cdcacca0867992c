// threads: the test program of `warpscope nvprof` for kernels launched from several host threads at
// once: 4 threads, each with its own stream and buffer, launch `bump` 25 times (a profiler must keep each
// launch's metrics apart and the program's results right); every element is checked.
//   nvcc -O3 -o threads threads.cu
//   ./threads    prints `threads: 0 of N wrong` and `launches: bump 100`; exits 1 on a mismatch
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static const int N = 1 << 20, THREADS = 4, LAUNCHES = 25;

__global__ void bump(float *x, int n, float by) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.5f + by;
}

struct Job {
    int id;
    int bad;
};

static void *run(void *arg) {
    Job *job = (Job *)arg;
    float *d, *h = (float *)malloc(N * sizeof(float));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s));
    for (int r = 0; r < LAUNCHES; r++) bump<<<N / 256, 256, 0, s>>>(d, N, (float)(job->id + r));
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    float want = 0.0f;
    for (int r = 0; r < LAUNCHES; r++) want = want * 0.5f + (float)(job->id + r);
    for (int i = 0; i < N; i++) job->bad += h[i] != want;
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
    free(h);
    return NULL;
}

int main() {
    CHECK(cudaFree(0));
    pthread_t t[THREADS];
    Job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = {i, 0};
        pthread_create(&t[i], NULL, run, &jobs[i]);
    }
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        bad += jobs[i].bad;
    }
    printf("threads: %d of %d wrong\n", bad, N * THREADS);
    printf("launches: bump %d\n", THREADS * LAUNCHES);
    return bad != 0;
}
