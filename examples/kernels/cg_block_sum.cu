// One partial sum per block, written with the toolkit's headers as nvcc users write them (no -I needed):
// each warp sums with cooperative groups, the block's warps with CUB's BlockReduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sum(float *partial, const float *x, int n)
{
    using BlockReduce = cub::BlockReduce<float, block_size_x>;
    __shared__ typename BlockReduce::TempStorage tmp;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    v = cg::reduce(warp, v, cg::plus<float>());
    float total = BlockReduce(tmp).Sum(warp.thread_rank() == 0 ? v : 0.0f);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}
