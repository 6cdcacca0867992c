// What `#pragma unroll 0` does (Kernel Tuner deletes the pragma for loop_unroll_factor 0).
#ifndef F
#define F 0
#endif
extern "C" __global__ void k(float *a, const float *b, int n)
{
    float s = 0.0f;
#ifndef NOPRAGMA
    #pragma unroll F
#endif
    for (int i = threadIdx.x; i < n; i += 32)
        s += b[i] * 1.5f;
    a[threadIdx.x] = s;
}
