// A program whose kernels exercise the kinds of work nvprof's metrics count, each kernel's counts
// worked out by hand (below) so that `warpscope nvprof --metrics all` can be checked against them and
// against Nsight Compute on the same program (scripts/nvprof-check.sh, step catalogue):
//   nvcc -O3 -o metricmix metricmix.cu && ./metricmix
// Every kernel's output is checked on the host; the program exits 1 on a wrong element.
//
// N = 1 << 20 threads in blocks of 256 (4096 blocks, 32768 warps), every thread in range:
//   fmaChain:    K = 64 dependent FFMAs and 64 dependent DFMAs per thread (a chain the compiler cannot
//                shorten): flop_count_sp_fma = flop_count_dp_fma = 64 N, flop_count_sp = flop_count_dp =
//                128 N; one 4-byte and one 8-byte global load and store per thread: inst_executed_global_
//                loads = inst_executed_global_stores = 2 x 32768 warps.
//   atomics:     one atomicAdd whose result is used (ATOM) and one whose result is not (RED) per thread,
//                on 256 counters: inst_executed_global_atomics = inst_executed_global_reductions =
//                32768 warps.
//   sharedConflict: a 32x33-float tile written in rows and read back in columns, then a 32x32 tile
//                read in columns (32-way bank conflicts): shared_load_transactions_per_request well
//                above 1 for the conflicting read; row stores conflict-free.
//   localArray:  a 64-float array indexed by a runtime value (kept in local memory): local loads and
//                stores > 0.
//   special:     one __sinf per thread (MUFU, the special function unit).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

const int N = 1 << 20;
const int THREADS = 256;
const int K = 64;

__global__ void fmaChain(const float *xf, const double *xd, float *yf, double *yd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = xf[i];
    double b = xd[i];
    float fa = 0.5f;
    double da = 0.25;
#pragma unroll 1
    for (int k = 0; k < K; k++) {
        fa = fmaf(fa, a, 1.0f);
        da = fma(da, b, 1.0);
    }
    yf[i] = fa;
    yd[i] = da;
}

__global__ void atomics(unsigned *counters, unsigned *seen) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    seen[i] = atomicAdd(&counters[i % 256], 1u);  // ATOM: the old value is used
    atomicAdd(&counters[256 + i % 256], 2u);      // RED: nothing read back
}

__global__ void sharedConflict(const float *in, float *out) {
    __shared__ float padded[32][33];
    __shared__ float square[32][32];
    int tx = threadIdx.x % 32, ty = threadIdx.x / 32;  // 256 threads: 8 rows of 32
    int base = blockIdx.x * THREADS;
    for (int r = ty; r < 32; r += 8) {
        padded[r][tx] = in[base + threadIdx.x] + r;
        square[r][tx] = in[base + threadIdx.x] - r;
    }
    __syncthreads();
    float s = 0.0f;
    for (int r = ty; r < 32; r += 8) s += padded[tx][r] + square[tx][r];  // columns
    out[base + threadIdx.x] = s;
}

__global__ void localArray(const int *idx, const float *x, float *out) {
    float buf[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 64; k++) buf[k] = x[(i * 7 + k) & (N - 1)];  // loaded: not computable
    int j = idx[i] & 63;  // a runtime index: buf lives in local memory
    out[i] = buf[j] + buf[(j + 17) & 63];
}

__global__ void special(const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = __sinf(x[i]);
}

static int failures = 0;
static void expect(bool ok, const char *what, long i) {
    if (!ok && failures++ < 5) fprintf(stderr, "wrong %s at %ld\n", what, i);
}

int main() {
    float *hf = (float *)malloc(N * sizeof(float)), *rf = (float *)malloc(N * sizeof(float));
    double *hd = (double *)malloc(N * sizeof(double)), *rd = (double *)malloc(N * sizeof(double));
    int *hi = (int *)malloc(N * sizeof(int));
    unsigned *hs = (unsigned *)malloc(N * sizeof(unsigned)), hc[512];
    unsigned s = 12345u;
    for (int i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u;
        hf[i] = (float)((s >> 16) & 0xFF) / 512.0f;
        hd[i] = (double)((s >> 8) & 0xFF) / 512.0;
        hi[i] = (int)(s >> 4);
    }
    float *xf, *yf;
    double *xd, *yd;
    int *xi;
    unsigned *counters, *seen;
    CHECK(cudaMalloc(&xf, N * sizeof(float)));
    CHECK(cudaMalloc(&yf, N * sizeof(float)));
    CHECK(cudaMalloc(&xd, N * sizeof(double)));
    CHECK(cudaMalloc(&yd, N * sizeof(double)));
    CHECK(cudaMalloc(&xi, N * sizeof(int)));
    CHECK(cudaMalloc(&counters, 512 * sizeof(unsigned)));
    CHECK(cudaMalloc(&seen, N * sizeof(unsigned)));
    CHECK(cudaMemcpy(xf, hf, N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(xd, hd, N * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(xi, hi, N * sizeof(int), cudaMemcpyHostToDevice));
    int blocks = N / THREADS;

    // fmaChain: the chain on the host, in the same order (fmaf/fma are exact on both sides).
    CHECK(cudaMemset(yf, 0xff, N * sizeof(float)));
    CHECK(cudaMemset(yd, 0xff, N * sizeof(double)));
    fmaChain<<<blocks, THREADS>>>(xf, xd, yf, yd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(rf, yf, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rd, yd, N * sizeof(double), cudaMemcpyDeviceToHost));
    for (long i = 0; i < N; i++) {
        float fa = 0.5f;
        double da = 0.25;
        for (int k = 0; k < K; k++) {
            fa = fmaf(fa, hf[i], 1.0f);
            da = fma(da, hd[i], 1.0);
        }
        expect(rf[i] == fa, "fmaChain float", i);
        expect(rd[i] == da, "fmaChain double", i);
    }

    // atomics: each of the 256 counters counted N/256 ATOMs and 2 N/256 from REDs; the old values
    // seen by one counter's threads are 0 .. N/256 - 1, each once.
    CHECK(cudaMemset(counters, 0, 512 * sizeof(unsigned)));
    CHECK(cudaMemset(seen, 0xff, N * sizeof(unsigned)));
    atomics<<<blocks, THREADS>>>(counters, seen);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hc, counters, sizeof hc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hs, seen, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int c = 0; c < 256; c++) {
        expect(hc[c] == N / 256, "atomics ATOM count", c);
        expect(hc[256 + c] == 2 * (N / 256), "atomics RED count", c);
    }
    {
        char *hit = (char *)calloc(N, 1);
        for (long i = 0; i < N; i++) {
            long slot = (long)(i % 256) * (N / 256) + hs[i];
            bool ok = hs[i] < (unsigned)(N / 256) && !hit[slot];
            expect(ok, "atomics old value", i);
            if (ok) hit[slot] = 1;
        }
        free(hit);
    }

    // sharedConflict: element (r, tx) of a block's tiles is in[base + ...] +- r; reading column tx
    // sums rows r = ty, ty+8, ... of column tx, i.e. the values written by thread (ty', tx') = (r%8 .. )
    CHECK(cudaMemset(yf, 0xff, N * sizeof(float)));
    sharedConflict<<<blocks, THREADS>>>(xf, yf);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(rf, yf, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (long b = 0; b < blocks; b++) {
        for (int t = 0; t < THREADS; t++) {
            int tx = t % 32, ty = t / 32;
            float sum = 0.0f;
            for (int r = ty; r < 32; r += 8) {
                // padded[tx][r] and square[tx][r] were written by the thread with column r, row tx
                // (row tx % 8 of the block's 8 thread rows wrote rows tx, tx+8, ...).
                long w = b * THREADS + (long)(tx % 8) * 32 + r;
                sum += (hf[w] + tx) + (hf[w] - tx);
            }
            expect(rf[b * THREADS + t] == sum, "sharedConflict", b * THREADS + t);
        }
    }

    // localArray: buf[k] = x[(7 i + k) mod N].
    CHECK(cudaMemset(yf, 0xff, N * sizeof(float)));
    localArray<<<blocks, THREADS>>>(xi, xf, yf);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(rf, yf, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (long i = 0; i < N; i++) {
        int j = hi[i] & 63;
        float want = hf[(i * 7 + j) & (N - 1)] + hf[(i * 7 + ((j + 17) & 63)) & (N - 1)];
        expect(rf[i] == want, "localArray", i);
    }

    // special: __sinf against sinf within its documented error (2^-21.41 absolute on [-pi, pi]).
    CHECK(cudaMemset(yf, 0xff, N * sizeof(float)));
    special<<<blocks, THREADS>>>(xf, yf);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(rf, yf, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (long i = 0; i < N; i++) expect(fabsf(rf[i] - sinf(hf[i])) <= 1e-6f, "special", i);

    CHECK(cudaDeviceSynchronize());
    printf("metricmix: 5 kernels of %d threads, %s\n", N, failures ? "WRONG RESULTS" : "all results checked");
    return failures ? 1 : 0;
}
