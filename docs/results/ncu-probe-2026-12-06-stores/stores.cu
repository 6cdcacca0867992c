// Store merging probe (issue 14, thirty-second session): does L1 merge the stores of different warps of
// a block to the same 128-byte line before they reach L2, and on what does it depend? Each warp of a
// block of W warps stores V floats per lane from its first A lanes into K lines (A / K lanes a line,
// lane % K picks the line, as the naive transpose's 16-wide blocks do), the block's W warps writing
// adjacent pieces of the same K lines. MODE 0: the value comes from the index; 1: it is loaded first
// (coalesced), as in a transpose. Every written element is checked and the rest must keep the poison.
//   nvcc -O3 -arch=sm_90 -o stores stores.cu && ./stores K W MODE [V A BLOCKS]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__host__ __device__ inline size_t place(long b, int t, int K, int per, int V, int nby, int pitch) {
    int lane = t & 31, w = t >> 5;
    size_t row = (size_t)(b / nby) * K + lane % K;
    size_t col = (size_t)(b % nby) * 32 + (size_t)(w * per + lane / K) * V;
    return row * pitch + col;
}

__global__ void stores(const float* __restrict__ in, float* __restrict__ out, int K, int per, int V, int A, int nby,
                       int pitch, int mode) {
    int lane = threadIdx.x & 31;
    if (lane >= A) return;
    size_t at = place(blockIdx.x, threadIdx.x, K, per, V, nby, pitch);
    size_t gid = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (V == 2) {
        float2 v = mode ? reinterpret_cast<const float2*>(in)[gid / 2] : make_float2((float)(gid & 0xFFFFFF), (float)((gid + 1) & 0xFFFFFF));
        *reinterpret_cast<float2*>(out + at) = v;
    } else {
        out[at] = mode ? in[gid] : (float)(gid & 0xFFFFFF);
    }
}

int main(int argc, char** argv) {
    if (argc < 4) { fprintf(stderr, "usage: stores K W MODE [V A BLOCKS]\n"); return 2; }
    int K = atoi(argv[1]), W = atoi(argv[2]), mode = atoi(argv[3]);
    int V = argc > 4 ? atoi(argv[4]) : 1, A = argc > 5 ? atoi(argv[5]) : 32;
    if ((V != 1 && V != 2) || A < 1 || A > 32 || K < 1 || K > A || A % K || W < 1 || W * (A / K) * V > 32) {
        fprintf(stderr, "error: need V in 1,2, A in 1..32, K | A and W * A/K * V <= 32\n");
        return 2;
    }
    int per = A / K, nby = 256, pitch = nby * 32;
    long blocks = argc > 6 ? atol(argv[6]) : (16L << 20) / (32L * W);  // 16 Mi threads by default
    blocks = (blocks + nby - 1) / nby * nby;
    long nbx = blocks / nby;
    size_t rows = (size_t)nbx * K, n_out = rows * pitch, n_in = (size_t)blocks * 32 * W * V;
    float *in, *out;
    CK(cudaMalloc(&in, n_in * 4)); CK(cudaMalloc(&out, n_out * 4));
    std::vector<float> h_in(n_in);
    srand(K * 1000 + W * 10 + mode + 7 * V + A);
    for (auto& x : h_in) x = (float)(rand() & 0xFFFFFF);
    CK(cudaMemcpy(in, h_in.data(), n_in * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(out, 0xFF, n_out * 4));  // poison: NaN
    stores<<<blocks, 32 * W>>>(in, out, K, per, V, A, nby, pitch, mode);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> h_out(n_out);
    CK(cudaMemcpy(h_out.data(), out, n_out * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0, written = 0;
    std::vector<char> hit(n_out, 0);
    for (long b = 0; b < blocks; b++)
        for (int t = 0; t < 32 * W; t++) {
            if ((t & 31) >= A) continue;
            size_t at = place(b, t, K, per, V, nby, pitch);
            for (int j = 0; j < V; j++) {
                size_t gid = ((size_t)b * 32 * W + t) * V + j;
                float want = mode ? h_in[gid] : (float)(gid & 0xFFFFFF);
                if (h_out[at + j] != want) bad++;
                hit[at + j] = 1; written++;
            }
        }
    for (size_t i = 0; i < n_out; i++) if (!hit[i] && h_out[i] == h_out[i]) bad++;  // must still be NaN
    if (bad) { fprintf(stderr, "error: K=%d W=%d mode=%d V=%d A=%d: %zu wrong elements\n", K, W, mode, V, A, bad); return 1; }
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int i = 0; i < 25; i++) {
        CK(cudaEventRecord(e0));
        stores<<<blocks, 32 * W>>>(in, out, K, per, V, A, nby, pitch, mode);
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, e0, e1)); if (i >= 5) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("K=%d W=%d mode=%d V=%d A=%d blocks=%ld words=%zu verified median_ms=%.4f min_ms=%.4f max_ms=%.4f\n", K, W, mode, V,
           A, blocks, written, ms[ms.size() / 2], ms.front(), ms.back());
    return 0;
}
