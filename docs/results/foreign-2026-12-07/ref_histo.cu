// Reference for the book's histograms (warpscope's own): block r counts bins r, r + gridDim.x, ...
// over every byte, its threads' counts summed in shared memory; no atomics.
extern "C" __global__ void count_bins(const unsigned char *buffer, long size, unsigned int *histo)
{
    __shared__ unsigned int part[1024];
    for (int b = blockIdx.x; b < 256; b += gridDim.x) {
        unsigned int c = 0;
        for (long i = threadIdx.x; i < size; i += blockDim.x) c += buffer[i] == b;
        part[threadIdx.x] = c;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned int s = 0;
            for (int t = 0; t < blockDim.x; ++t) s += part[t];
            histo[b] = s;
        }
        __syncthreads();
    }
}
