// template_scale.cu: a template kernel, as libraries write them (nothing here instantiates it: the
// kernel file names the instantiation, and NVRTC makes it). Each thread scales PER_THREAD elements of
// type T, a block-stride apart; the reference kernel strides over the grid it is given (the file's
// grid rule, which is sized for PER_THREAD = 4).
template <typename T, int PER_THREAD>
__global__ void scale(T *y, const T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++, i += blockDim.x)
        if (i < n) y[i] = a * x[i];
}

template <typename T>
__global__ void scale_ref(T *y, const T *x, T a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i];
}
