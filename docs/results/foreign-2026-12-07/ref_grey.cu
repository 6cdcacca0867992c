// References for the CS344 greyscale kernels (warpscope's own): one pixel a thread, row-major, over
// whatever grid the kernel file's rule gives (blocks of x, then y).
extern "C" __global__ void grey4_ref(const uchar4 *in, unsigned char *out, int rows, int cols)
{
    long i = ((long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= (long)rows * cols) return;
    uchar4 p = in[i];
    out[i] = (unsigned char)((299 * p.x + 587 * p.y + 114 * p.z) / 1000.f);
}
extern "C" __global__ void grey3_ref(const unsigned char *in, unsigned char *out, int rows, int cols)
{
    long i = ((long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= (long)rows * cols) return;
    float r = in[3 * i], g = in[3 * i + 1], b = in[3 * i + 2];
    out[i] = (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b);
}
