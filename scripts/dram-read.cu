// DRAM read bandwidth as a microbenchmark sees it (docs/MODEL.md section 14). Part 1: reads buffers of
// 1, 2, 4 and 8 x L2 once (L2 flushed by a memset before each timed launch) with calRead (one float4 per
// thread per iteration) and with 2, 4 and 8 independent float4 loads per thread per iteration, 8 blocks of
// 256 per SM; then writes and copies the same way, and cuMemcpyDtoD. Part 2: the same reads with L2
// flushed by reading a buffer (clean lines) instead. Part 3: bytes in flight against the rate for three
// traffic mixes (reads; two reads and a write; a copy), one element of each stream in flight per thread,
// 1 to 64 warps per SM, at 2 and 4 x L2. Standalone, so the question can be asked of a GPU without warpscope:
//   nvcc -O3 -std=c++17 -o dram-read scripts/dram-read.cu && ./dram-read
// Prints one line per kernel and size: MB, median ms of 5 (events around the launch), GB/s, GB/s less an
// empty launch, and GB/s between this size and the one before it (the marginal rate: launch, ramp and
// tail cancel); part 3 prints the marginal rates.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../tests/programs/check.h"

#include "../kernels/calibrate.cu"

// U independent float4 loads per thread per iteration, all issued before any is used.
template <int U> __global__ void readDeep(const float4 *in, long n4, float *out)
{
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    long i = tid;
    for (; i + (U - 1) * threads < n4; i += U * threads) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = in[i + u * threads];
#pragma unroll
        for (int u = 0; u < U; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += threads) {
        float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) out[tid] = acc;
}

template <int U> __global__ void writeDeep(float4 *o, long n4)
{
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    for (long i = tid; i < n4; i += threads) o[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}

template <int U> __global__ void copyDeep(const float4 *in, float4 *o, long n4)
{
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    long i = tid;
    for (; i + (U - 1) * threads < n4; i += U * threads) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = in[i + u * threads];
#pragma unroll
        for (int u = 0; u < U; ++u) o[i + u * threads] = v[u];
    }
    for (; i < n4; i += threads) o[i] = in[i];
}


// One element of each stream in flight per thread (the loop is not unrolled, each value used before the
// next iteration's loads): `reads` float4 loads (from a, and b when 2) and `writes` float4 stores (to c).
__global__ void inflightMix(const float4 *a, const float4 *b, float4 *c, long n4, int reads, int writes,
                            float *out)
{
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll 1
    for (long i = tid; i < n4; i += threads) {
        float4 v = a[i];
        if (reads == 2) {
            float4 u = b[i];
            v.x += u.x; v.y += u.y; v.z += u.z; v.w += u.w;
        }
        if (writes) c[i] = v;
        else acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) out[tid] = acc;
}

__global__ void readFlush(const float4 *in, long n4, float *out)
{
    long tid = blockIdx.x * (long)blockDim.x + threadIdx.x, threads = (long)gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (long i = tid; i < n4; i += threads) acc += in[i].x;
    if (acc == 1234.5f) out[tid] = acc;
}

int main()
{
    int sms, l2;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const size_t most = 8 * (size_t)l2;
    float4 *a, *b;
    float *flush, *sink;
    CHECK(cudaMalloc(&a, most));
    CHECK(cudaMalloc(&b, most));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaMalloc(&sink, sizeof(float) * sms * 2048));
    CHECK(cudaMemset(a, 0, most));
    CHECK(cudaMemset(b, 0, most));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    bool readFlushMode = false;
    auto time = [&](auto launch, bool flushFirst) {
        std::vector<float> ms;
        for (int i = 0; i < 6; ++i) {
            if (flushFirst && readFlushMode) readFlush<<<sms * 8, 256>>>((const float4 *)flush, 2 * (long)l2 / 16, sink);
            else if (flushFirst) CHECK(cudaMemset(flush, i, 2 * (size_t)l2));
            CHECK(cudaEventRecord(e0));
            launch();
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float t;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (i > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        return (double)ms[ms.size() / 2];
    };
    int zero = 0;
    double empty = time([&] { calEmpty<<<1, 32>>>((int *)sink, zero); }, false);
    printf("device: %d SMs, L2 %d bytes; empty launch %.4f ms\n", sms, l2, empty);
    const dim3 grid(sms * 8), block(256);
    auto row = [&](const char *what, double (*bytesOf)(size_t), auto launchOf) {
        double prevBytes = 0, prevMs = 0;
        for (size_t k = 1; k <= 8; k *= 2) {
            size_t size = k * (size_t)l2;
            long n4 = (long)(size / 16);
            double ms = time([&] { launchOf(n4); }, true);
            double bytes = bytesOf(size);
            printf("%-14s %6.0f MB  %8.4f ms  %7.0f GB/s  less launch %7.0f GB/s", what, bytes / 1e6, ms,
                   bytes / (ms * 1e-3) / 1e9, bytes / ((ms - empty) * 1e-3) / 1e9);
            if (prevMs > 0) printf("  marginal %7.0f GB/s", (bytes - prevBytes) / ((ms - prevMs) * 1e-3) / 1e9);
            printf("\n");
            prevBytes = bytes;
            prevMs = ms;
        }
    };
    auto once = [](size_t s) { return (double)s; };
    auto twice = [](size_t s) { return 2.0 * s; };
    row("calRead", once, [&](long n4) { calRead<<<grid, block>>>(a, (int)n4, 1, sink); });
    row("read x2", once, [&](long n4) { readDeep<2><<<grid, block>>>(a, n4, sink); });
    row("read x4", once, [&](long n4) { readDeep<4><<<grid, block>>>(a, n4, sink); });
    row("read x8", once, [&](long n4) { readDeep<8><<<grid, block>>>(a, n4, sink); });
    row("read x4 1024", once, [&](long n4) { readDeep<4><<<sms * 2, 1024>>>(a, n4, sink); });
    row("write", once, [&](long n4) { writeDeep<1><<<grid, block>>>(b, n4); });
    row("copy x1", twice, [&](long n4) { copyDeep<1><<<grid, block>>>(a, b, n4); });
    row("copy x4", twice, [&](long n4) { copyDeep<4><<<grid, block>>>(a, b, n4); });
    row("cuMemcpyDtoD", twice, [&](long n4) { CHECK(cudaMemcpyAsync(b, a, n4 * 16, cudaMemcpyDeviceToDevice)); });
    // The same reads with L2 flushed by reading (clean lines) instead of by a memset (dirty lines that the
    // timed kernel must write back).
    readFlushMode = true;
    printf("-- L2 flushed by reading\n");
    row("calRead", once, [&](long n4) { calRead<<<grid, block>>>(a, (int)n4, 1, sink); });
    row("read x4", once, [&](long n4) { readDeep<4><<<grid, block>>>(a, n4, sink); });
    row("copy x1", twice, [&](long n4) { copyDeep<1><<<grid, block>>>(a, b, n4); });
    // Bytes in flight against the rate, per traffic mix: one 512-byte load (and store) per warp in flight,
    // 1 to 64 warps per SM, at 2 and 4 x L2 of each stream (marginal rate between them).
    float4 *c;
    CHECK(cudaMalloc(&c, most));
    CHECK(cudaMemset(c, 0, most));
    const char *names[] = {"read", "2 reads 1 write", "copy"};
    int mixes[3][2] = {{1, 0}, {2, 1}, {1, 1}};
    printf("-- in flight: mix, warps/SM, KiB read in flight/SM, read GB/s at 2 and 4 x L2, marginal read GB/s, "
           "marginal total GB/s\n");
    for (int m = 0; m < 3; ++m)
        for (int warps = 1; warps <= 64; warps *= 2) {
            int blocks = warps <= 32 ? sms : sms * warps / 32, threads = warps <= 32 ? 32 * warps : 1024;
            double ms[2], readBytes[2];
            for (int k = 0; k < 2; ++k) {
                long n4 = (long)((2 << k) * (size_t)l2 / 16);
                ms[k] = time([&] { inflightMix<<<blocks, threads>>>(a, b, c, n4, mixes[m][0], mixes[m][1], sink); }, true);
                readBytes[k] = 16.0 * n4 * mixes[m][0];
            }
            double per = (double)(mixes[m][0] + mixes[m][1]) / mixes[m][0];
            double marg = (readBytes[1] - readBytes[0]) / ((ms[1] - ms[0]) * 1e-3) / 1e9;
            printf("%-16s %3d %5.1f  %7.0f %7.0f  marginal %7.0f  total %7.0f\n", names[m], warps,
                   warps * 512.0 * mixes[m][0] / 1024, readBytes[0] / (ms[0] * 1e-3) / 1e9,
                   readBytes[1] / (ms[1] * 1e-3) / 1e9, marg, marg * per);
        }
    return 0;
}
