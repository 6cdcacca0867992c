// Reference for deposit_density_2d (warpscope's own test material): no atomics. Each thread owns
// one cell (a grid-stride loop over the cells, whatever grid the kernel file's rule gives) and counts
// the particles whose cell, computed by the kernel's own expression, is its; the count is written as
// a float (exact below 2^24 particles a cell, as the kernel's float atomics are).
extern "C" __global__ void deposit_ref(const float *x, const float *y, float *N, int n_particles,
                                       int N_GRID_X, int N_GRID_Y, float Lx, float Ly)
{
    long cells = (long)N_GRID_X * N_GRID_Y;
    long stride = (long)blockDim.x * gridDim.x * gridDim.y;
    for (long c = ((long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x; c < cells; c += stride) {
        int count = 0;
        for (int i = 0; i < n_particles; ++i) {
            int ix = int(x[i] / Lx * N_GRID_X) % N_GRID_X;
            int iy = int(y[i] / Ly * N_GRID_Y) % N_GRID_Y;
            count += (ix + (long)iy * N_GRID_X == c);
        }
        N[c] = (float)count;
    }
}
