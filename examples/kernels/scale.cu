// scale.cu: block_size_x and UNROLL arrive as #defines
__global__ void scale(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * block_size_x * UNROLL + threadIdx.x;
#pragma unroll
    for (int k = 0; k < UNROLL; k++, i += block_size_x)
        if (i < n) y[i] = a * x[i];
}
__global__ void scale_ref(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
