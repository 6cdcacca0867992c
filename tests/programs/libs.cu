// Kernels warpscope did not compile: cuBLAS's SGEMM (C = A B, 1024 x 1024, three times) and its
// half-precision GEMM on tensor cores (cublasGemmEx, float accumulation), cuFFT's complex transform there
// and back (2^20 points), and Thrust's sort and reduce (CUB's kernels, long template names), each checked
// on the host: 64 rows of each product against the CPU's, the round trip within 1e-4 of the input, the
// sorted keys and their sum exactly.
// `warpscope nvprof` must see and measure the libraries' kernels as it does the program's own
// (scripts/nvprof-check.sh, step libs).
#include "check.h"
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cufft.h>
#include <math.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <vector>

#define CHECK_LIB(call, ok, what)                                                                  \
    {                                                                                              \
        int s = (int)(call);                                                                       \
        if (s != (int)(ok)) {                                                                      \
            fprintf(stderr, "Error: %s:%d, %s returned %d\n", __FILE__, __LINE__, what, s);        \
            exit(1);                                                                               \
        }                                                                                          \
    }

// Elements of 64 rows of C (n x n, row-major) farther than atol + 1e-3 |want| from the CPU's A B.
static int wrong(const std::vector<float> &c, const std::vector<float> &a, const std::vector<float> &b, int n,
                 double atol)
{
    int bad = 0;
    for (int i = 0; i < n; i += n / 64) {
        for (int j = 0; j < n; j++) {
            double want = 0.0;
            for (int k = 0; k < n; k++) want += (double)a[i * n + k] * b[k * n + j];
            if (!(fabs(c[i * n + j] - want) <= atol + 1e-3 * fabs(want))) bad++;
        }
    }
    return bad;
}

static int gemm(int n)
{
    std::vector<float> a(n * n), b(n * n), c(n * n, NAN);
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7 + 3) % 13) / 13.0f - 0.5f;
        b[i] = (float)((i * 5 + 1) % 11) / 11.0f - 0.5f;
    }
    float *da, *db, *dc;
    size_t bytes = sizeof(float) * n * n;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0xff, bytes));
    cublasHandle_t h;
    CHECK_LIB(cublasCreate(&h), CUBLAS_STATUS_SUCCESS, "cublasCreate");
    const float one = 1.0f, zero = 0.0f;
    // Column-major: C^T = B^T A^T, i.e. row-major C = A B.
    for (int r = 0; r < 3; r++) {
        CHECK_LIB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, n, da, n, &zero, dc, n),
                  CUBLAS_STATUS_SUCCESS, "cublasSgemm");
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
    int bad = wrong(c, a, b, n, 1e-3);
    cublasDestroy(h);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    printf("sgemm %dx%d: %s (%d of %d checked elements wrong)\n", n, n, bad ? "FAILED" : "ok", bad, 64 * n);
    return bad;
}

// C = A B in half precision on tensor cores, accumulated in float.
static int hgemm(int n)
{
    std::vector<__half> a(n * n), b(n * n);
    std::vector<float> af(n * n), bf(n * n), c(n * n, NAN);
    for (int i = 0; i < n * n; i++) {
        a[i] = __float2half((float)((i * 7 + 3) % 13) / 13.0f - 0.5f);
        b[i] = __float2half((float)((i * 5 + 1) % 11) / 11.0f - 0.5f);
        af[i] = __half2float(a[i]);
        bf[i] = __half2float(b[i]);
    }
    __half *da, *db;
    float *dc;
    CHECK(cudaMalloc(&da, sizeof(__half) * n * n));
    CHECK(cudaMalloc(&db, sizeof(__half) * n * n));
    CHECK(cudaMalloc(&dc, sizeof(float) * n * n));
    CHECK(cudaMemcpy(da, a.data(), sizeof(__half) * n * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), sizeof(__half) * n * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0xff, sizeof(float) * n * n));
    cublasHandle_t h;
    CHECK_LIB(cublasCreate(&h), CUBLAS_STATUS_SUCCESS, "cublasCreate");
    const float one = 1.0f, zero = 0.0f;
    CHECK_LIB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, CUDA_R_16F, n, da, CUDA_R_16F, n, &zero,
                           dc, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS, "cublasGemmEx");
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    int bad = wrong(c, af, bf, n, 1e-2);
    cublasDestroy(h);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    printf("hgemm %dx%d: %s (%d of %d checked elements wrong)\n", n, n, bad ? "FAILED" : "ok", bad, 64 * n);
    return bad;
}

// Keys n-1 .. 0 sorted by Thrust, then summed.
static int sort(int n)
{
    thrust::device_vector<int> v(n);
    thrust::sequence(v.begin(), v.end(), n - 1, -1);
    thrust::sort(v.begin(), v.end());
    long long sum = thrust::reduce(v.begin(), v.end(), 0LL);
    std::vector<int> h(n);
    thrust::copy(v.begin(), v.end(), h.begin());
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != i;
    bool summed = sum == (long long)n * (n - 1) / 2;
    printf("thrust sort and reduce of %d keys: %s (%d out of place, sum %s)\n", n, bad || !summed ? "FAILED" : "ok", bad,
           summed ? "right" : "wrong");
    return bad + !summed;
}

static int fft(int n)
{
    std::vector<cufftComplex> x(n), y(n);
    for (int i = 0; i < n; i++) {
        x[i].x = sinf(0.001f * i);
        x[i].y = cosf(0.0007f * i);
    }
    cufftComplex *d;
    CHECK(cudaMalloc(&d, sizeof(cufftComplex) * n));
    CHECK(cudaMemcpy(d, x.data(), sizeof(cufftComplex) * n, cudaMemcpyHostToDevice));
    cufftHandle p;
    CHECK_LIB(cufftPlan1d(&p, n, CUFFT_C2C, 1), CUFFT_SUCCESS, "cufftPlan1d");
    CHECK_LIB(cufftExecC2C(p, d, d, CUFFT_FORWARD), CUFFT_SUCCESS, "cufftExecC2C forward");
    CHECK_LIB(cufftExecC2C(p, d, d, CUFFT_INVERSE), CUFFT_SUCCESS, "cufftExecC2C inverse");
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(y.data(), d, sizeof(cufftComplex) * n, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (!(fabsf(y[i].x / n - x[i].x) <= 1e-4f && fabsf(y[i].y / n - x[i].y) <= 1e-4f)) bad++;
    }
    cufftDestroy(p);
    CHECK(cudaFree(d));
    printf("fft %d points there and back: %s (%d of %d wrong)\n", n, bad ? "FAILED" : "ok", bad, n);
    return bad;
}

int main()
{
    int bad = gemm(1024) + hgemm(1024) + fft(1 << 20) + sort(1 << 24);
    return bad ? 1 : 0;
}
