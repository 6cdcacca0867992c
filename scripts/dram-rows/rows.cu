// scripts/dram-rows.sh's kernels: one float per thread of an nx x ny matrix, read only, copied, or
// written only, so that block shapes of one size (1024x1 ... 16x64) differ only in how many matrix rows
// a block spreads its accesses over.
// Reads only: the flag is set by a value the inputs (uniform in [-1, 1]) never hold, and cleared by the
// first thread, so that every block shape gives the same output.
__global__ void readRows(const float *A, float *flag, int nx, int ny) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix == 0 && iy == 0) flag[0] = 0.0f;
    if (ix < nx && iy < ny && A[(size_t)iy * nx + ix] == 12345.0f) flag[0] = 1.0f;
}
__global__ void copyRows(const float *A, float *C, int nx, int ny) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < nx && iy < ny) C[(size_t)iy * nx + ix] = A[(size_t)iy * nx + ix];
}
__global__ void writeRows(float *C, int nx, int ny) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < nx && iy < ny) C[(size_t)iy * nx + ix] = (float)ix;
}
