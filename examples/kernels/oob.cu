// transpose_oob: a transpose with a deliberate out-of-bounds bug, for warpscope's GPU check. The bounds
// check says `y <= h` where it means `y < h`: when the grid's last block row reaches y == h (any block
// height that does not make ceil(h / by) * by == h), those threads read past the end of `in` and write
// into the first element of the next output column, over the right value. warpscope reports such a
// configuration as failed (or the launch as an illegal address) and names compute-sanitizer as the next
// step; `compute-sanitizer --tool memcheck` then points at this line.
extern "C" __global__ void transpose_oob(float *out, const float *in, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y <= h) {
        out[x * h + y] = in[y * w + x];
    }
}

// The reference: the same transpose with the right bounds check.
extern "C" __global__ void transpose_ref(float *out, const float *in, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        out[x * h + y] = in[y * w + x];
    }
}
