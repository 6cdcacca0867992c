// L1 data-pipe wavefronts of a warp-wide global load (docs/MODEL.md section 19): every warp of 4096 reads one
// float per lane, lanes `s` words apart in `rows` groups of 32/rows lanes `pitch` words apart, `off` words
// into a 512-byte boundary, and stores it coalesced (`strided`), or loads coalesced and stores so
// (`strided_store`); ncu counts the data pipe's wavefronts. Configurations
// "s off rows pitch" on stdin, one launch each; every value read is checked. Run by
// scripts/l1-wavefronts.sh.
#include <cstdio>
#include <cstdlib>
extern "C" __global__ void strided(const float *in, float *out, int s, int off, int rows, int pitch)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = t / 32, lane = t % 32, per = 32 / rows;
    size_t base = (size_t)warp * 65536;
    float v = in[base + (size_t)(lane / per) * pitch + (size_t)(lane % per) * s + off];
    out[t] = v;
}

// The same pattern for a store: a coalesced load, the strided store.
extern "C" __global__ void strided_store(const float *in, float *out, int s, int off, int rows, int pitch)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = t / 32, lane = t % 32, per = 32 / rows;
    size_t base = (size_t)warp * 65536;
    out[base + (size_t)(lane / per) * pitch + (size_t)(lane % per) * s + off] = in[t];
}

// Each word of the input holds its own index's bits, so that every value read says where it came from.
extern "C" __global__ void indices(unsigned *w, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        w[i] = (unsigned)i;
}

// The word thread t of the patterns reads (and the store writes).
static size_t word_of(size_t t, int s, int off, int rows, int pitch)
{
    size_t warp = t / 32, lane = t % 32, per = 32 / rows;
    return warp * 65536 + (lane / per) * pitch + (lane % per) * s + off;
}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    return e != cudaSuccess;
}

int main(int argc, char **argv)
{
    // Configurations "s off rows pitch", one per line on stdin; one launch each of the load and of the
    // store pattern, in order. Every value the load read is checked, and 64 of the store's words.
    const int warps = 4096, threads = warps * 32;
    size_t n = (size_t)warps * 65536 + 65536 * 4;
    float *in, *out, *big;
    if (check(cudaMalloc(&in, n * 4), "cudaMalloc") || check(cudaMalloc(&out, threads * 4), "cudaMalloc") ||
        check(cudaMalloc(&big, n * 4), "cudaMalloc"))
        return 1;
    indices<<<1024, 256>>>((unsigned *)in, n);
    if (check(cudaDeviceSynchronize(), "indices")) return 1;
    unsigned *got = (unsigned *)malloc(threads * 4);
    int s, off, rows, pitch, configs = 0;
    while (scanf("%d %d %d %d", &s, &off, &rows, &pitch) == 4) {
        if (check(cudaMemset(out, 0xff, threads * 4), "cudaMemset")) return 1;
        strided<<<warps / 4, 128>>>(in, out, s, off, rows, pitch);
        strided_store<<<warps / 4, 128>>>(out, big, s, off, rows, pitch);
        if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "kernels")) return 1;
        if (check(cudaMemcpy(got, out, threads * 4, cudaMemcpyDeviceToHost), "cudaMemcpy")) return 1;
        for (size_t t = 0; t < (size_t)threads; ++t)
            if (got[t] != (unsigned)word_of(t, s, off, rows, pitch)) {
                fprintf(stderr, "error: pattern %d %d %d %d: thread %zu read %u\n", s, off, rows, pitch, t, got[t]);
                return 1;
            }
        // The store: every thread t wrote the word it had read; where lanes share a word (s = 0), one of them.
        for (size_t k = 0; k < 64; ++k) {
            size_t t = k * (threads / 64) + k % 32;
            unsigned v;
            if (check(cudaMemcpy(&v, big + word_of(t, s, off, rows, pitch), 4, cudaMemcpyDeviceToHost), "cudaMemcpy"))
                return 1;
            if (s != 0 && v != (unsigned)word_of(t, s, off, rows, pitch)) {
                fprintf(stderr, "error: pattern %d %d %d %d: thread %zu stored %u\n", s, off, rows, pitch, t, v);
                return 1;
            }
        }
        ++configs;
    }
    printf("%d patterns, every load and 64 stores each checked\n", configs);
    free(got);
    return 0;
}
