// sumMatrixOnGPUMix: the variant of source 001's matrix sum that the same course sweeps next to
// sumMatrixOnGPU2D (Cheng et al., "Professional CUDA C Programming", ch. 2): a 2D grid of 1D blocks,
// one block row per matrix row (grid.y = ny), one element per thread, bounds check.
// extern "C" keeps the PTX entry name plain.

extern "C" __global__ void sumMatrixOnGPUMix(float *MatA, float *MatB, float *MatC, int nx, int ny)
{
    unsigned int ix = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned int iy = blockIdx.y;
    unsigned int idx = iy * nx + ix;
    if (ix < nx && iy < ny) {
        MatC[idx] = MatA[idx] + MatB[idx];
    }
}
