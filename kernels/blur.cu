// Gaussian blur (source 000's case study) on one float channel of W x H (RGB images are blurred per
// channel), edges clamped. Taps: w[k] = exp(-(k-R)^2 / (2 sigma^2)), k = 0..2R, normalised; R = ceil(3 sigma).
//   blurDirect          2D convolution, (2R+1)^2 taps per pixel
//   blurRows/blurCols   separable passes, 2R+1 taps each
//   blurRowsTiled/...   the same with the block's neighbourhood staged in shared memory
//   rgV/rgH             recursive Gaussian (Deriche's 4th-order IIR, causal + anti-causal), one thread per
//                       column (V: coalesced) or per row (H: strided)
//   rgVSeg              rgV with each column cut into 32-row segments, each recursion started `warm`
//                       samples early so the truncated history has decayed: W x H/32 threads instead of W

#define MAX_TAPS 255

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return min(max(v, lo), hi); }

// Every block computes the normalised taps into shared memory (2R+1 <= MAX_TAPS).
__device__ __forceinline__ void taps(float *w, float sigma, int R)
{
    int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
    for (int k = tid; k <= 2 * R; k += nthreads) {
        float d = (float)(k - R);
        w[k] = expf(-d * d / (2.0f * sigma * sigma));
    }
    __syncthreads();
    if (tid == 0) {
        float s = 0.0f;
        for (int k = 0; k <= 2 * R; ++k) s += w[k];
        w[MAX_TAPS] = 1.0f / s;
    }
    __syncthreads();
}

extern "C" __global__ void blurDirect(const float *in, float *out, int W, int H, float sigma, int R)
{
    __shared__ float w[MAX_TAPS + 1];
    taps(w, sigma, R);
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float acc = 0.0f;
    for (int j = -R; j <= R; ++j) {
        const float *row = in + (size_t)clampi(y + j, 0, H - 1) * W;
        float racc = 0.0f;
        for (int i = -R; i <= R; ++i) racc += w[i + R] * row[clampi(x + i, 0, W - 1)];
        acc += w[j + R] * racc;
    }
    float n = w[MAX_TAPS];
    out[(size_t)y * W + x] = acc * n * n;
}

extern "C" __global__ void blurRows(const float *in, float *out, int W, int H, float sigma, int R)
{
    __shared__ float w[MAX_TAPS + 1];
    taps(w, sigma, R);
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    const float *row = in + (size_t)y * W;
    float acc = 0.0f;
    for (int i = -R; i <= R; ++i) acc += w[i + R] * row[clampi(x + i, 0, W - 1)];
    out[(size_t)y * W + x] = acc * w[MAX_TAPS];
}

extern "C" __global__ void blurCols(const float *in, float *out, int W, int H, float sigma, int R)
{
    __shared__ float w[MAX_TAPS + 1];
    taps(w, sigma, R);
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float acc = 0.0f;
    for (int j = -R; j <= R; ++j) acc += w[j + R] * in[(size_t)clampi(y + j, 0, H - 1) * W + x];
    out[(size_t)y * W + x] = acc * w[MAX_TAPS];
}

// Tiled passes: the block's rows (or columns) plus R on each side in dynamic shared memory.
extern "C" __global__ void blurRowsTiled(const float *in, float *out, int W, int H, float sigma, int R)
{
    __shared__ float w[MAX_TAPS + 1];
    extern __shared__ float tile[]; // blockDim.y rows of blockDim.x + 2R
    taps(w, sigma, R);
    int span = blockDim.x + 2 * R;
    int x0 = blockIdx.x * blockDim.x - R, y = blockIdx.y * blockDim.y + threadIdx.y;
    int yc = clampi(y, 0, H - 1);
    for (int i = threadIdx.x; i < span; i += blockDim.x)
        tile[threadIdx.y * span + i] = in[(size_t)yc * W + clampi(x0 + i, 0, W - 1)];
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= W || y >= H) return;
    float acc = 0.0f;
    for (int i = 0; i <= 2 * R; ++i) acc += w[i] * tile[threadIdx.y * span + threadIdx.x + i];
    out[(size_t)y * W + x] = acc * w[MAX_TAPS];
}

extern "C" __global__ void blurColsTiled(const float *in, float *out, int W, int H, float sigma, int R)
{
    __shared__ float w[MAX_TAPS + 1];
    extern __shared__ float tile[]; // blockDim.y + 2R rows of blockDim.x
    taps(w, sigma, R);
    int span = blockDim.y + 2 * R;
    int x = blockIdx.x * blockDim.x + threadIdx.x, y0 = blockIdx.y * blockDim.y - R;
    int xc = clampi(x, 0, W - 1);
    for (int j = threadIdx.y; j < span; j += blockDim.y)
        tile[j * blockDim.x + threadIdx.x] = in[(size_t)clampi(y0 + j, 0, H - 1) * W + xc];
    __syncthreads();
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float acc = 0.0f;
    for (int j = 0; j <= 2 * R; ++j) acc += w[j] * tile[(threadIdx.y + j) * blockDim.x + threadIdx.x];
    out[(size_t)y * W + x] = acc * w[MAX_TAPS];
}

// Deriche's 4th-order recursion along a line of n samples at stride s (clamped edges: the state starts at
// the steady-state response to the edge value). c = {n0..n3, m1..m4, d1..d4, gain_causal, gain_anticausal}:
//   y+[i] = n0 x[i] + n1 x[i-1] + n2 x[i-2] + n3 x[i-3] - d1 y+[i-1] - ... - d4 y+[i-4]
//   y-[i] = m1 x[i+1] + m2 x[i+2] + m3 x[i+3] + m4 x[i+4] - d1 y-[i+1] - ... - d4 y-[i+4]
//   out[i] = y+[i] + y-[i]
// over samples [lo, hi) of the line, the recursions starting at `from` (causal) and `to` (anti-causal):
// the whole line for rgV/rgH, a warm-up margin around the segment for rgVSeg.
__device__ void deriche(const float *in, float *out, int n, size_t s, const float *c, int from, int lo, int hi, int to)
{
    // Causal pass, written to out.
    float x0 = in[(size_t)clampi(from, 0, n - 1) * s];
    float x1 = x0, x2 = x0, x3 = x0;
    float y1 = c[12] * x0, y2 = y1, y3 = y1, y4 = y1;
    for (int i = from; i < hi; ++i) {
        float xi = in[(size_t)clampi(i, 0, n - 1) * s];
        float y = c[0] * xi + c[1] * x1 + c[2] * x2 + c[3] * x3 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        x3 = x2; x2 = x1; x1 = xi;
        y4 = y3; y3 = y2; y2 = y1; y1 = y;
        if (i >= lo) out[(size_t)i * s] = y;
    }
    // Anti-causal pass, added.
    float e = in[(size_t)clampi(to - 1, 0, n - 1) * s];
    x1 = e; x2 = e; x3 = e; float x4 = e;
    y1 = c[13] * e; y2 = y1; y3 = y1; y4 = y1;
    for (int i = to - 1; i >= lo; --i) {
        float y = c[4] * x1 + c[5] * x2 + c[6] * x3 + c[7] * x4 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        x4 = x3; x3 = x2; x2 = x1; x1 = in[(size_t)clampi(i, 0, n - 1) * s];
        y4 = y3; y3 = y2; y2 = y1; y1 = y;
        if (i < hi) out[(size_t)i * s] += y;
    }
}

#define COEFS float c0, float c1, float c2, float c3, float c4, float c5, float c6, float c7, float c8, float c9, float c10, float c11, float c12, float c13
#define PACK float c[14] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13}

extern "C" __global__ void rgV(const float *in, float *out, int W, int H, COEFS)
{
    PACK;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < W) deriche(in + x, out + x, H, W, c, 0, 0, H, H);
}

extern "C" __global__ void rgH(const float *in, float *out, int W, int H, COEFS)
{
    PACK;
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y < H) deriche(in + (size_t)y * W, out + (size_t)y * W, W, 1, c, 0, 0, W, W);
}

// Column segments of SEG rows: thread (column, segment) runs the causal recursion from `warm` rows above
// its segment (keeping its SEG results in registers) and the anti-causal one from `warm` rows below,
// writing each output once. W x H / SEG threads instead of W.
#define SEG 32

extern "C" __global__ void rgVSeg(const float *in, float *out, int W, int H, int warm, COEFS)
{
    PACK;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int lo = (blockIdx.y * blockDim.y + threadIdx.y) * SEG;
    if (x >= W || lo >= H) return;
    int hi = min(lo + SEG, H);
    int from = lo == 0 ? 0 : lo - warm, to = hi == H ? H : min(hi + warm, H);
    const float *col = in + x;
    float yp[SEG];

    // The warm-up may start above the image (lo < warm): those samples are the clamped edge.
    float x0 = col[(size_t)clampi(from, 0, H - 1) * W];
    float x1 = x0, x2 = x0, x3 = x0;
    float y1 = c[12] * x0, y2 = y1, y3 = y1, y4 = y1;
    // Warm-up: eight loads in flight before the eight recursion steps that use them.
    int i = from;
    for (; i + 8 <= lo; i += 8) {
        float xs[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) xs[k] = col[(size_t)clampi(i + k, 0, H - 1) * W];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            float y = c[0] * xs[k] + c[1] * x1 + c[2] * x2 + c[3] * x3 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
            x3 = x2; x2 = x1; x1 = xs[k];
            y4 = y3; y3 = y2; y2 = y1; y1 = y;
        }
    }
    for (; i < lo; ++i) {
        float xi = col[(size_t)clampi(i, 0, H - 1) * W];
        float y = c[0] * xi + c[1] * x1 + c[2] * x2 + c[3] * x3 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        x3 = x2; x2 = x1; x1 = xi;
        y4 = y3; y3 = y2; y2 = y1; y1 = y;
    }
#pragma unroll
    for (int k = 0; k < SEG; ++k) {
        if (lo + k < hi) {
            float xi = col[(size_t)(lo + k) * W];
            float y = c[0] * xi + c[1] * x1 + c[2] * x2 + c[3] * x3 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
            x3 = x2; x2 = x1; x1 = xi;
            y4 = y3; y3 = y2; y2 = y1; y1 = y;
            yp[k] = y;
        }
    }

    float e = col[(size_t)(to - 1) * W];
    x1 = e; x2 = e; x3 = e; float x4 = e;
    y1 = c[13] * e; y2 = y1; y3 = y1; y4 = y1;
    i = to - 1;
    for (; i - 8 >= hi - 1; i -= 8) {
        float xs[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) xs[k] = col[(size_t)(i - k) * W];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            float y = c[4] * x1 + c[5] * x2 + c[6] * x3 + c[7] * x4 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
            x4 = x3; x3 = x2; x2 = x1; x1 = xs[k];
            y4 = y3; y3 = y2; y2 = y1; y1 = y;
        }
    }
    for (; i >= hi; --i) {
        float y = c[4] * x1 + c[5] * x2 + c[6] * x3 + c[7] * x4 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        x4 = x3; x3 = x2; x2 = x1; x1 = col[(size_t)i * W];
        y4 = y3; y3 = y2; y2 = y1; y1 = y;
    }
#pragma unroll
    for (int k = SEG - 1; k >= 0; --k) {
        if (lo + k < hi) {
            float y = c[4] * x1 + c[5] * x2 + c[6] * x3 + c[7] * x4 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
            x4 = x3; x3 = x2; x2 = x1; x1 = col[(size_t)(lo + k) * W];
            y4 = y3; y3 = y2; y2 = y1; y1 = y;
            out[(size_t)(lo + k) * W + x] = yp[k] + y;
        }
    }
}
