// partial_sums.cu: one partial sum per block (a grid-stride loop over num_blocks blocks, then a tree in
// shared memory), as the first stage of a reduction writes them; the kernel file checks their total
// against the input's ([verify] sums), since the partials themselves depend on the grid.
extern "C" __global__ void partial_sums(float *partial, const float *x, int n)
{
    __shared__ float s[block_size_x];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += num_blocks * blockDim.x) acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
