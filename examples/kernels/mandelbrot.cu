// The Mandelbrot set by escape time: each pixel iterates z = z^2 + c until |z| > 2 or max_iter, so a
// thread's work is decided by floats it computes, not by its index — pixels inside the set take every
// iteration, those far outside a few, and a warp waits for its slowest pixel. Rounded operations
// (__fmul_rn, __fadd_rn: no contraction into FMAs) so that the kernel and its reference count alike.

__device__ __forceinline__ float coord(int p, int n, float lo, float hi)
{
    // lo + (hi - lo) * (p + 0.5) / n
    return __fadd_rn(lo, __fdiv_rn(__fmul_rn(__fsub_rn(hi, lo), __fadd_rn((float)p, 0.5f)), (float)n));
}

__device__ __forceinline__ int escape(float cx, float cy, int max_iter)
{
    float x = 0.0f, y = 0.0f;
    int i = 0;
    while (i < max_iter) {
        float xx = __fmul_rn(x, x), yy = __fmul_rn(y, y);
        if (__fadd_rn(xx, yy) > 4.0f) break;
        y = __fadd_rn(__fmul_rn(2.0f, __fmul_rn(x, y)), cy);
        x = __fadd_rn(__fsub_rn(xx, yy), cx);
        ++i;
    }
    return i;
}

// One pixel per thread, 2D blocks.
extern "C" __global__ void mandelbrot(int *out, int w, int h, float x0, float y0, float x1, float y1, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    out[(size_t)py * w + px] = escape(coord(px, w, x0, x1), coord(py, h, y0, y1), max_iter);
}

// The reference: the pixels in row-major order, strided over every thread of whatever grid and block it
// is launched with (the kernel file's grid rule gives it the problem's 2D grid).
extern "C" __global__ void mandelbrot_ref(int *out, int w, int h, float x0, float y0, float x1, float y1, int max_iter)
{
    long long n = (long long)w * h;
    long long threads = (long long)gridDim.x * gridDim.y * blockDim.x * blockDim.y;
    long long first = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y)
                      + threadIdx.y * blockDim.x + threadIdx.x;
    for (long long i = first; i < n; i += threads) {
        int px = (int)(i % w), py = (int)(i / w);
        out[i] = escape(coord(px, w, x0, x1), coord(py, h, y0, y1), max_iter);
    }
}
