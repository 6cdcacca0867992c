// Occupancy probes: kernels whose register and static shared-memory use span the range the occupancy
// calculator must handle. `warpscope occupancy --against-driver` loads them, asks the driver
// (cuOccupancyMaxActiveBlocksPerMultiprocessor) for many block and dynamic-shared-memory sizes, and
// compares with warpscope's own calculation. Each body keeps WIDTH values live; __maxnreg__ caps the
// registers, so the compiled counts differ per entry. They are never launched.

#define WIDTH 224

#define PROBE(NAME, MAXREG, SMEM_FLOATS)                                                          \
    extern "C" __global__ void __maxnreg__(MAXREG) NAME(const float *in, float *out, int n)      \
    {                                                                                             \
        __shared__ float tile[SMEM_FLOATS];                                                       \
        float acc[WIDTH];                                                                         \
        int t = blockIdx.x * blockDim.x + threadIdx.x;                                            \
        _Pragma("unroll") for (int i = 0; i < WIDTH; ++i) acc[i] = in[(t + i * 977) % n];         \
        tile[threadIdx.x % SMEM_FLOATS] = acc[0];                                                 \
        __syncthreads();                                                                          \
        float s = tile[(threadIdx.x + 1) % SMEM_FLOATS];                                          \
        _Pragma("unroll") for (int i = 0; i < WIDTH; ++i) s = s * acc[i] + acc[WIDTH - 1 - i];    \
        out[t % n] = s;                                                                           \
    }

PROBE(probe_r16_s1k, 16, 256)
PROBE(probe_r24_s0k, 24, 1)
PROBE(probe_r32_s4k, 32, 1024)
PROBE(probe_r40_s0k, 40, 1)
PROBE(probe_r48_s12k, 48, 3072)
PROBE(probe_r56_s2k, 56, 512)
PROBE(probe_r64_s0k, 64, 1)
PROBE(probe_r72_s8k, 72, 2048)
PROBE(probe_r96_s16k, 96, 4096)
PROBE(probe_r128_s0k, 128, 1)
PROBE(probe_r168_s24k, 168, 6144)
PROBE(probe_r255_s40k, 255, 10240)
