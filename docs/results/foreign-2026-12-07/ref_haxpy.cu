// Reference for haxpy (warpscope's own test material): y = a * x + y computed in float, one element
// per iteration of a grid-stride loop over all n halves (the kernel file's grid covers only n / 2
// threads), rounded once to half at the end.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy_ref(int n, __half a, const __half *x, __half *y)
{
    long start = ((long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    long stride = (long)blockDim.x * gridDim.x * gridDim.y;
    float af = __half2float(a);
    for (long i = start; i < n; i += stride)
        y[i] = __float2half_rn(fmaf(af, __half2float(x[i]), __half2float(y[i])));
}
