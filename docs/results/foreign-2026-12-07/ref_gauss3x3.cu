// Reference for the 3x3 Gaussian kernels of logaritmabir/optimizing-convolution (warpscope's own test
// material): weights 1 2 1 / 2 4 2 / 1 2 1 written out, sum >> 4, interior pixels only (the kernels
// leave the one-pixel border unwritten), one pixel per iteration of a 2D grid-stride loop over
// x = column, y = row. (It declares no const_conv_kernel3x3: warpscope fills the file's constants only
// where a reference module declares them.)

extern "C" __global__ void gauss3x3_ref(const unsigned char *in, unsigned char *out, int rows, int cols)
{
    for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x) {
            if (r < 1 || c < 1 || r >= rows - 1 || c >= cols - 1) continue;
            const unsigned char *p = in + (long)r * cols + c;
            int up = p[-cols - 1] + 2 * p[-cols] + p[-cols + 1];
            int mid = 2 * p[-1] + 4 * p[0] + 2 * p[1];
            int down = p[cols - 1] + 2 * p[cols] + p[cols + 1];
            out[(long)r * cols + c] = (unsigned char)((up + mid + down) >> 4);
        }
}
