// Reference for stencil2D_sm (warpscope's own test material): the same 4-point Jacobi step read
// straight from global memory, one element per iteration of a 2D grid-stride loop (the kernel file's
// grid of overlapping tiles covers the array at any block, but the loop does not rely on it); the
// edges are not written, as the kernel leaves them.
extern "C" __global__ void stencil2d_ref(const float *a, float *b, int nx, int ny)
{
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += blockDim.y * gridDim.y)
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += blockDim.x * gridDim.x) {
            if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) continue;
            long i = (long)y * nx + x;
            b[i] = 0.25f * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
        }
}
