// histogram.cu: 256-bin histograms of byte keys by atomics, over a grid-stride loop of num_blocks
// blocks (a compile-time parameter). histogram_shared counts into a block-private histogram in shared
// memory (shared atomics) and adds it to the global bins once per bin and block (the two-level
// histogram of the CUDA samples); histogram_global counts straight into the global bins (every key an
// atomic at L2). Each checks the other: the counts are exact integers, whatever the order of the
// additions.
extern "C" __global__ void histogram_shared(const unsigned int *keys, unsigned int *bins, int n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x)
        atomicAdd(&local[keys[i] & 255u], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void histogram_global(const unsigned int *keys, unsigned int *bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x)
        atomicAdd(&bins[keys[i] & 255u], 1u);
}
