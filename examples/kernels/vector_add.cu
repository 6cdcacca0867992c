// vector_add: c = a + b over n floats, one element per thread. C++ linkage on purpose: the PTX entry is
// mangled (_Z10vector_addPfPKfS1_i) and warpscope finds it by its plain name.
__global__ void vector_add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// The reference: a grid-stride loop, correct for any launch shape.
__global__ void vector_add_ref(float *c, const float *a, const float *b, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
