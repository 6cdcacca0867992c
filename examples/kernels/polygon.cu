// Points in a polygon by the crossing number, the polygon in __constant__ memory (filled by the kernel
// file's [[constants]], as Kernel Tuner's cmem_args fill pnpoly's): each thread tests its point against
// every edge, and only edges that straddle the point's height take the division and the comparison, so
// a warp's work is decided by the constant array's values and its points' (docs/MODEL.md section 29).
// Rounded operations (__fdiv_rn, ...: no contraction) so that the kernel and its reference agree.

#define MAX_VERTICES 1024
__constant__ float2 polygon[MAX_VERTICES];

__device__ __forceinline__ int crossings(float2 p, int nv)
{
    int c = 0;
    for (int j = 0, k = nv - 1; j < nv; k = j++) {
        float2 a = polygon[j], b = polygon[k];
        if ((a.y > p.y) != (b.y > p.y)) {
            float x = __fadd_rn(__fdiv_rn(__fmul_rn(__fsub_rn(b.x, a.x), __fsub_rn(p.y, a.y)), __fsub_rn(b.y, a.y)), a.x);
            if (p.x < x) c ^= 1;
        }
    }
    return c;
}

// One point per thread.
extern "C" __global__ void inside(int *out, const float2 *points, int n, int nv)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = crossings(points[i], nv);
}

// The reference: the points strided over every thread of whatever grid it is launched with.
extern "C" __global__ void inside_ref(int *out, const float2 *points, int n, int nv)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = crossings(points[i], nv);
}
