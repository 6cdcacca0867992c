// y = a x + y over float4 elements: one 16-byte load of x, one of y and one store a thread.
extern "C" __global__ void saxpy4(int n, float a, const float4 *__restrict__ x, float4 *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = x[i];
        float4 w = y[i];
        w.x = a * v.x + w.x;
        w.y = a * v.y + w.y;
        w.z = a * v.z + w.z;
        w.w = a * v.w + w.w;
        y[i] = w;
    }
}

// The reference: the same sum one float a thread, reading the vectors as the 4n floats they are.
extern "C" __global__ void saxpy4_ref(int n, float a, const float4 *x, float4 *y)
{
    const float *xs = reinterpret_cast<const float *>(x);
    float *ys = reinterpret_cast<float *>(y);
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < 4LL * n; i += stride)
        ys[i] = a * xs[i] + ys[i];
}
