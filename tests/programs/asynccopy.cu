// Global loads that go straight to shared memory (cp.async, SASS LDGSTS, sm_80 and newer), as cuBLAS,
// CUTLASS and most tuned kernels load: through L1 (`.ca`, 4 bytes a thread) or around it (`.cg`, 16
// bytes), and one kernel that mixes them with ordinary loads (LDG). Every output element is checked
// on the host. ncu's gld_throughput (L1TEX bytes of global loads) counts the LDGSTS that pass through
// L1; `warpscope nvprof` must agree (scripts/nvprof-check.sh, step libs).
#include "check.h"
#include <vector>

__device__ __forceinline__ void copy_async(float *smem, const float *g, int bytes_ca4_or_cg16)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if (bytes_ca4_or_cg16 == 4) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(g));
    } else {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g));
    }
}

__device__ __forceinline__ void wait_all()
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::);
    __syncthreads();
}

// mode 0: 4 bytes a thread through L1; mode 1: 16 bytes a thread around it; mode 2: mode 0 plus an
// ordinary load of the same element.
__global__ void asyncCopy(const float *in, float *out, int n, int mode)
{
    __shared__ __align__(16) float tile[4 * 256];
    int t = threadIdx.x, per = mode == 1 ? 4 : 1;
    long long base = (long long)blockIdx.x * blockDim.x * per;
    if (base + (long long)(t + 1) * per <= n) {
        copy_async(&tile[t * per], in + base + (long long)t * per, mode == 1 ? 16 : 4);
    }
    wait_all();
    for (int k = 0; k < per; k++) {
        long long i = base + (long long)t * per + k;
        if (i < n) {
            float extra = mode == 2 ? in[i] : 0.0f;
            out[i] = 2.0f * tile[t * per + k] + extra;
        }
    }
}

int main()
{
    const int n = 1 << 24;
    std::vector<float> h(n), o(n);
    for (int i = 0; i < n; i++) h[i] = (float)(i % 1000) * 0.25f;
    float *in, *out;
    CHECK(cudaMalloc(&in, sizeof(float) * n));
    CHECK(cudaMalloc(&out, sizeof(float) * n));
    CHECK(cudaMemcpy(in, h.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
    int bad = 0;
    for (int mode = 0; mode < 3; mode++) {
        CHECK(cudaMemset(out, 0xff, sizeof(float) * n));
        int per = mode == 1 ? 4 : 1;
        asyncCopy<<<n / (256 * per), 256>>>(in, out, n, mode);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(o.data(), out, sizeof(float) * n, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < n; i++) {
            float want = 2.0f * h[i] + (mode == 2 ? h[i] : 0.0f);
            if (o[i] != want) wrong++;
        }
        printf("asyncCopy mode %d: %s (%d of %d wrong)\n", mode, wrong ? "FAILED" : "ok", wrong, n);
        bad += wrong;
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return bad ? 1 : 0;
}
