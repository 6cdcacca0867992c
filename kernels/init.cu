// fillUniform: fresh random inputs generated on the GPU, so a problem's gigabytes of input never cross
// PCIe. Element i of stream s is a pure function of (seed, s, i) -- SplitMix64 of a counter -- which
// warpscope's CPU side (kernels::uniform) reproduces bit for bit for the reference.

extern "C" __global__ void fillUniform(float *out, unsigned long long n, unsigned long long seed, unsigned int stream)
{
    unsigned long long base = seed ^ ((unsigned long long)stream * 0xD1B54A32D192ED03ull);
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long z = base + (i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z = z ^ (z >> 31);
        // 24 random bits -> [0, 1) exactly, then [-1, 1): every step is exact in float.
        out[i] = (float)(z >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    }
}
