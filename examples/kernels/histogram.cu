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

// histogram_wide: nbins bins (a power of two up to 65536, a run-time argument), every key an atomic at
// L2: its footprint of nbins x 4 bytes decides how many L2 slices share the atomics. histogram_ranges is
// its reference, with no global atomics: each block counts one range of 256 bins at a time in shared
// memory, reading every key, and writes the range.
extern "C" __global__ void histogram_wide(const unsigned int *keys, unsigned int *bins, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x)
        atomicAdd(&bins[keys[i] & (unsigned)(nbins - 1)], 1u);
}

extern "C" __global__ void histogram_ranges(const unsigned int *keys, unsigned int *bins, int n, int nbins)
{
    __shared__ unsigned int local[256];
    for (int r = blockIdx.x; r * 256 < nbins; r += gridDim.x) {
        for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            unsigned int k = keys[i] & (unsigned)(nbins - 1);
            if ((int)(k >> 8) == r) atomicAdd(&local[k & 255u], 1u);
        }
        __syncthreads();
        for (int b = threadIdx.x; b < 256 && r * 256 + b < nbins; b += blockDim.x) bins[r * 256 + b] = local[b];
        __syncthreads();
    }
}
