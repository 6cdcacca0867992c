// L1 data-pipe wavefronts of a warp-wide global load (docs/MODEL.md section 19): every warp of 4096 reads one
// float per lane, lanes `s` words apart in `rows` groups of 32/rows lanes `pitch` words apart, `off` words
// into a 512-byte boundary, and stores it coalesced (`strided`), or loads coalesced and stores so
// (`strided_store`); ncu counts the data pipe's wavefronts. Configurations
// "s off rows pitch" on stdin, one launch each. Run by scripts/l1-wavefronts.sh.
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

int main(int argc, char **argv)
{
    // Configurations "s off rows pitch", one per line on stdin; one launch each, in order.
    int warps = 4096;
    size_t n = (size_t)warps * 65536 + 65536 * 4;
    float *in, *out;
    if (cudaMalloc(&in, n * 4) != cudaSuccess || cudaMalloc(&out, warps * 32 * 4) != cudaSuccess) return 1;
    cudaMemset(in, 0, n * 4);
    float *big;
    if (cudaMalloc(&big, n * 4) != cudaSuccess) return 1;
    int s, off, rows, pitch;
    while (scanf("%d %d %d %d", &s, &off, &rows, &pitch) == 4) {
        strided<<<warps / 4, 128>>>(in, out, s, off, rows, pitch);
        strided_store<<<warps / 4, 128>>>(out, big, s, off, rows, pitch);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    }
    return 0;
}
