// conv2d: out = in * filter, a (2r+1) x (2r+1) filter over a w x h float image (zero outside it).
// Each block computes a (block_size_x * tile_x) x (block_size_y * tile_y) tile of the output, each thread
// tile_x x tile_y outputs; the block's input tile with its halo is staged in dynamic shared memory
// (its size is the kernel file's shared_memory expression). Compile-time: block_size_x/y, tile_x, tile_y.
extern "C" __global__ void conv2d(float *out, const float *in, const float *filter, int w, int h, int r)
{
    extern __shared__ float tile[];
    const int tw = block_size_x * tile_x + 2 * r;
    const int th = block_size_y * tile_y + 2 * r;
    const int x0 = blockIdx.x * block_size_x * tile_x - r;
    const int y0 = blockIdx.y * block_size_y * tile_y - r;
    for (int ty = threadIdx.y; ty < th; ty += block_size_y) {
        for (int tx = threadIdx.x; tx < tw; tx += block_size_x) {
            const int x = x0 + tx, y = y0 + ty;
            tile[ty * tw + tx] = (x >= 0 && x < w && y >= 0 && y < h) ? in[y * w + x] : 0.0f;
        }
    }
    __syncthreads();
    const int fw = 2 * r + 1;
#pragma unroll
    for (int j = 0; j < tile_y; j++) {
#pragma unroll
        for (int i = 0; i < tile_x; i++) {
            const int lx = threadIdx.x + i * block_size_x;
            const int ly = threadIdx.y + j * block_size_y;
            const int x = x0 + r + lx, y = y0 + r + ly;
            if (x < w && y < h) {
                float sum = 0.0f;
                for (int fy = 0; fy < fw; fy++) {
                    for (int fx = 0; fx < fw; fx++) {
                        sum += tile[(ly + fy) * tw + lx + fx] * filter[fy * fw + fx];
                    }
                }
                out[y * w + x] = sum;
            }
        }
    }
}

// The reference: one output per thread, straight from global memory, the same summation order.
extern "C" __global__ void conv2d_naive(float *out, const float *in, const float *filter, int w, int h, int r)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) {
        return;
    }
    const int fw = 2 * r + 1;
    float sum = 0.0f;
    for (int fy = 0; fy < fw; fy++) {
        for (int fx = 0; fx < fw; fx++) {
            const int sx = x + fx - r, sy = y + fy - r;
            const float v = (sx >= 0 && sx < w && sy >= 0 && sy < h) ? in[sy * w + sx] : 0.0f;
            sum += v * filter[fy * fw + fx];
        }
    }
    out[y * w + x] = sum;
}
