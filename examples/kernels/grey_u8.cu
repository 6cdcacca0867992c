// grey_u8.cu: RGBA pixels of one byte a channel (uchar4) to one grey byte, in integers (ITU-R 601
// weights, exact): 4-byte loads of a warp side by side and 1-byte stores, four lanes to a word.
// grey_u8_ref reads the channels as bytes, one pixel a thread over whatever grid it is given.
extern "C" __global__ void grey_u8(const uchar4 *rgba, unsigned char *grey, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar4 p = rgba[(size_t)y * w + x];
    grey[(size_t)y * w + x] = (unsigned char)((299 * p.x + 587 * p.y + 114 * p.z) / 1000);
}

extern "C" __global__ void grey_u8_ref(const unsigned char *rgba, unsigned char *grey, int w, int h)
{
    size_t i = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= (size_t)w * h) return;
    unsigned int r = rgba[4 * i], g = rgba[4 * i + 1], b = rgba[4 * i + 2];
    grey[i] = (unsigned char)((299 * r + 587 * g + 114 * b) / 1000);
}
