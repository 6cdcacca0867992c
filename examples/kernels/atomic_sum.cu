// atomic_sum.cu: the sum of n integers into one word by global atomics, over a grid-stride loop of
// num_blocks blocks (a compile-time parameter). sum_atomic adds every element with its own atomic (a
// warp's 32 lanes on one word: L2 serves them one after another); sum_warp_atomic adds a warp's
// elements with shuffles first, one atomic a warp. Integer sums are exact whatever the order.
extern "C" __global__ void sum_atomic(const unsigned int *x, unsigned int *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x)
        atomicAdd(out, x[i]);
}

// blockDim.x a multiple of 32 (the shuffles take every lane of a warp).
extern "C" __global__ void sum_warp_atomic(const unsigned int *x, unsigned int *out, int n)
{
    unsigned int s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x) s += x[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
