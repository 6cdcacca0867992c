// poly_constant.cu: a polynomial whose coefficients live in __constant__ memory (filled by the kernel
// file's [[constants]], as Kernel Tuner's cmem_args), checked against a reference that reads the same
// coefficients from an ordinary buffer (`coef`): were the constants left unfilled, they would disagree.
__constant__ float coeffs[DEGREE + 1];

extern "C" __global__ void poly(float *y, const float *x, const float *coef, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
#pragma unroll
    for (int k = DEGREE; k >= 0; k--) acc = acc * v + coeffs[k];
    y[i] = acc;
}

extern "C" __global__ void poly_ref(float *y, const float *x, const float *coef, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
    for (int k = DEGREE; k >= 0; k--) acc = acc * v + coef[k];
    y[i] = acc;
}
