// Immediate-constant-cache probe: a loop over N float2 in __constant__ memory that ptxas unrolls fully,
// so each vertex is a ULDC/LDC at a fixed offset (as Kernel Tuner's pnpoly's vertices), 64 warps per
// SM. Prints ns per vertex per SM and per warp-vertex, by the array's bytes (N x 8). Checked on the host.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#define MAXV 4096
__constant__ float2 v[MAXV];
template <int N>
__global__ void walk(const float *x, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float p = x[i], s = 0.f;
#pragma unroll
    for (int j = 0; j < N; ++j) s += (p < v[j].y) ? v[j].x : 0.f;
    out[i] = s;
}
template <int N>
static int run(int sms, const float *x, float *out, const std::vector<float2> &h, const std::vector<float> &hx)
{
    int blocks = sms * 8 * 8, threads = 256;  // 8 waves of 8 blocks of 8 warps per SM
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    walk<N><<<blocks, threads>>>(x, out);
    cudaEventRecord(a);
    for (int r = 0; r < 5; ++r) walk<N><<<blocks, threads>>>(x, out);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (cudaGetLastError() != cudaSuccess) { fprintf(stderr, "error: launch\n"); return 1; }
    std::vector<float> got(blocks * threads);
    cudaMemcpy(got.data(), out, sizeof(float) * got.size(), cudaMemcpyDeviceToHost);
    for (int i = 0; i < blocks * threads; i += 97) {
        float s = 0.f;
        for (int j = 0; j < N; ++j) s += (hx[i] < h[j].y) ? h[j].x : 0.f;
        if (s != got[i]) { fprintf(stderr, "error: thread %d sum %f expected %f\n", i, got[i], s); return 1; }
    }
    double per_sm = (double)blocks * threads / 32 / sms * N;
    printf("%d,%d,%.4f,%.4f\n", N * 8, N, ms / 5 * 1e6 / per_sm, ms / 5);
    return 0;
}
int main()
{
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    std::vector<float2> h(MAXV);
    for (int j = 0; j < MAXV; ++j) h[j] = make_float2((float)(j % 7), (float)((j * 37) % 101) / 101.f);
    cudaMemcpyToSymbol(v, h.data(), sizeof(float2) * MAXV);
    int n = sms * 8 * 8 * 256;
    std::vector<float> hx(n);
    for (int i = 0; i < n; ++i) hx[i] = (float)((i * 13) % 997) / 997.f;
    float *x, *out; cudaMalloc(&x, sizeof(float) * n); cudaMalloc(&out, sizeof(float) * n);
    cudaMemcpy(x, hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice);
    printf("bytes,vertices,ns_per_warp_vertex_per_sm,ms_per_launch\n");
    if (run<64>(sms, x, out, h, hx) || run<128>(sms, x, out, h, hx) || run<256>(sms, x, out, h, hx) ||
        run<512>(sms, x, out, h, hx) || run<1024>(sms, x, out, h, hx) || run<2048>(sms, x, out, h, hx))
        return 1;
    printf("# every checked sum right (%d SMs)\n", sms);
}
