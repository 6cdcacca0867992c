// Source 004's experiment (SKE): resize, RGB-to-gray and a Gaussian smooth on 480x270 RGB frames, with
// blocks of 32 x k. Frames are float RGB, interleaved (R, G, B per pixel), a batch of them along
// blockIdx.z so that one launch carries enough work to time. One thread per output pixel; 2D grid.

// Luma (ITU-R BT.601): gray = 0.299 R + 0.587 G + 0.114 B.
extern "C" __global__ void rgbToGray(const float *rgb, float *gray, int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H) {
        size_t p = ((size_t)blockIdx.z * H + y) * W + x;
        gray[p] = 0.299f * rgb[3 * p] + 0.587f * rgb[3 * p + 1] + 0.114f * rgb[3 * p + 2];
    }
}

// Bilinear resize of each W x H frame to OW x OH (pixel centres aligned, edges clamped).
extern "C" __global__ void resizeBilinear(const float *in, float *out, int W, int H, int OW, int OH)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= OW || y >= OH) return;
    float sx = fminf(fmaxf((x + 0.5f) * W / OW - 0.5f, 0.0f), (float)(W - 1));
    float sy = fminf(fmaxf((y + 0.5f) * H / OH - 0.5f, 0.0f), (float)(H - 1));
    int x0 = (int)sx, y0 = (int)sy;
    int x1 = min(x0 + 1, W - 1), y1 = min(y0 + 1, H - 1);
    float fx = sx - x0, fy = sy - y0;
    size_t f = (size_t)blockIdx.z * H;
    const float *r0 = in + ((f + y0) * W) * 3, *r1 = in + ((f + y1) * W) * 3;
    float *o = out + (((size_t)blockIdx.z * OH + y) * OW + x) * 3;
    for (int c = 0; c < 3; ++c) {
        float top = r0[3 * x0 + c] + fx * (r0[3 * x1 + c] - r0[3 * x0 + c]);
        float bot = r1[3 * x0 + c] + fx * (r1[3 * x1 + c] - r1[3 * x0 + c]);
        o[c] = top + fy * (bot - top);
    }
}

// 5x5 Gaussian (binomial 1 4 6 4 1, outer product / 256) on each channel, edges clamped.
__constant__ float kTaps[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};

extern "C" __global__ void gaussianSmooth(const float *in, float *out, int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    size_t f = (size_t)blockIdx.z * H;
    float acc[3] = {0.0f, 0.0f, 0.0f};
    for (int dy = -2; dy <= 2; ++dy) {
        int yy = min(max(y + dy, 0), H - 1);
        for (int dx = -2; dx <= 2; ++dx) {
            int xx = min(max(x + dx, 0), W - 1);
            float w = kTaps[dy + 2] * kTaps[dx + 2];
            const float *p = in + ((f + yy) * W + xx) * 3;
            acc[0] += w * p[0];
            acc[1] += w * p[1];
            acc[2] += w * p[2];
        }
    }
    float *o = out + ((f + y) * W + x) * 3;
    o[0] = acc[0];
    o[1] = acc[1];
    o[2] = acc[2];
}
