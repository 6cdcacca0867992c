// multi: the test program of `warpscope nvprof` for everything sumMatrix does not exercise: several
// kernels (one a template) on two streams, a phase where the streams overlap, asynchronous copies and a
// memset, and a child process that is a CUDA program too. Every launch of busy, scale, stencil and
// child_kernel is timed with CUDA events, so that a profiler's times can be checked against the
// program's own: each timed batch runs alone, behind a `spacer` kernel that keeps its stream busy while
// the first event is queued, and modules load eagerly, so that an event pair brackets its kernel only.
//   nvcc -O3 -o multi multi.cu
//   ./multi            runs its kernels, then `./multi child`, and waits for it
//   ./multi child      the child: its own kernel
//   ./multi crash      dies of SIGSEGV after its kernels (what was collected must survive)
//   ./multi exit N     exits with N after its kernels
//   ./multi together   starts the child first, so that both run kernels at the same time
// Prints `events: NAME LAUNCHES TOTAL_MS` per timed kernel.
#include <cuda_runtime.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"

extern char **environ;

__global__ void spacer(float *x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++) v = v * 0.999f + 0.1f;
        x[i] = v;
    }
}

__global__ void busy(float *x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++) v = v * 0.9999f + 0.5f;
        x[i] = v;
    }
}

__global__ void scale(float *x, float a, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++) v = v * a + 1.0f;
        x[i] = v;
    }
}

template <int R>
__global__ void stencil(const float *in, float *out, int n, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= R && i < n - R) {
        float s = 0;
        for (int r = 0; r < reps; r++)
            for (int k = -R; k <= R; k++) s += in[i + k] * (1.0f + r * 1e-6f);
        out[i] = s / ((2 * R + 1) * reps);
    }
}

__global__ void overlap(float *x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++) v = v * 1.00001f - 0.01f;
        x[i] = v;
    }
}

__global__ void child_kernel(float *x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < iters; k++) v = v * 1.0001f - 0.25f;
        x[i] = v;
    }
}

struct Timed {
    const char *name;
    int launches;
    cudaEvent_t start[64], stop[64];
};

static void timed_init(Timed &t, const char *name) {
    t.name = name;
    t.launches = 0;
}

static void report(Timed &t) {
    float total = 0;
    for (int i = 0; i < t.launches; i++) {
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, t.start[i], t.stop[i]));
        total += ms;
    }
    printf("events: %s %d %.6f\n", t.name, t.launches, total);
}

#define TIMED(t, stream, launch)                                                                   \
    {                                                                                              \
        CHECK(cudaEventCreate(&(t).start[(t).launches]));                                          \
        CHECK(cudaEventCreate(&(t).stop[(t).launches]));                                           \
        CHECK(cudaEventRecord((t).start[(t).launches], stream));                                   \
        launch;                                                                                    \
        CHECK(cudaGetLastError());                                                                 \
        CHECK(cudaEventRecord((t).stop[(t).launches], stream));                                    \
        (t).launches++;                                                                            \
    }

static int child(void) {
    const int n = 1 << 20;
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemset(d, 0, n * sizeof(float)));
    Timed t;
    timed_init(t, "child_kernel");
    spacer<<<n / 256, 256>>>(d, n, 20000);
    for (int i = 0; i < 5; i++) TIMED(t, 0, (child_kernel<<<n / 256, 256>>>(d, n, 20000)));
    CHECK(cudaDeviceSynchronize());
    report(t);
    CHECK(cudaFree(d));
    return 0;
}

static pid_t spawn_child(char *argv0) {
    pid_t pid;
    char *child_argv[] = {argv0, (char *)"child", NULL};
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child_argv, environ) != 0) {
        perror("posix_spawn");
        exit(1);
    }
    return pid;
}

int main(int argc, char **argv) {
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    const bool together = argc > 1 && strcmp(argv[1], "together") == 0;
    pid_t pid = together ? spawn_child(argv[0]) : 0;
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    float *h, *a, *b, *c;
    CHECK(cudaMallocHost(&h, bytes));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 97);
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaMemcpyAsync(a, h, bytes, cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(b, h, bytes, cudaMemcpyHostToDevice, s2));
    CHECK(cudaMemsetAsync(c, 0, bytes, s2));
    CHECK(cudaDeviceSynchronize());

    // Timed batches, one stream at a time.
    Timed tb, ts, tt;
    timed_init(tb, "busy");
    timed_init(ts, "scale");
    timed_init(tt, "stencil<int=3>");
    spacer<<<n / 256, 256, 0, s1>>>(c, n, 20000);
    for (int i = 0; i < 10; i++) TIMED(tb, s1, (busy<<<n / 256, 256, 0, s1>>>(a, n, 20000)));
    CHECK(cudaStreamSynchronize(s1));
    spacer<<<n / 256, 256, 0, s2>>>(c, n, 20000);
    for (int i = 0; i < 10; i++) TIMED(ts, s2, (scale<<<n / 128, 128, 0, s2>>>(b, 0.999f, n, 10000)));
    for (int i = 0; i < 4; i++) TIMED(tt, s2, (stencil<3><<<n / 256, 256, 0, s2>>>(b, c, n, 640)));
    CHECK(cudaStreamSynchronize(s2));

    // The streams overlap (untimed).
    for (int i = 0; i < 5; i++) {
        overlap<<<64, 256, 0, s1>>>(a, 64 * 256, 100000);
        overlap<<<64, 256, 0, s2>>>(b, 64 * 256, 100000);
    }
    CHECK(cudaMemcpyAsync(h, c, bytes, cudaMemcpyDeviceToHost, s2));
    CHECK(cudaDeviceSynchronize());
    report(tb);
    report(ts);
    report(tt);
    printf("checksum %f\n", h[n / 2]);
    fflush(stdout);

    if (argc > 1 && strcmp(argv[1], "crash") == 0) raise(SIGSEGV);
    if (argc > 2 && strcmp(argv[1], "exit") == 0) return atoi(argv[2]);

    if (!together) pid = spawn_child(argv[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return 0;
}
