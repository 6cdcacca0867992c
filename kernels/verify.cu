// Verification on the GPU: every element of an output compared with the CPU reference (uploaded once per
// sweep), so that only a tally crosses PCIe, not the outputs. The arithmetic is warpscope's CPU comparison
// (src/verify.rs, Tolerance::accepts) rounded the same way: |got - want| <= abs + rel * |want| in float,
// each operation rounded to nearest and never fused, and NaN (the poison) never passing.
//
// tally[0]: mismatches; tally[1]: ~(index of the first mismatch), 0 when none; tally[2]: the bits of the
// largest finite |got - want| (non-negative floats order as their bits); tally[3]: got | expected << 32 at
// the first mismatch, written by compareFirst. The caller zeroes the tally before compareOutputs.

extern "C" __global__ void compareOutputs(const float *got, const float *want, unsigned long long n, float abs_tol,
                                          float rel_tol, unsigned long long *tally)
{
    unsigned long long mismatches = 0, first = 0;
    float max_err = 0.0f;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        float g = got[i], w = want[i];
        float err = fabsf(__fsub_rn(g, w));
        if (isfinite(err)) {
            max_err = fmaxf(max_err, err);
        }
        if (!(err <= __fadd_rn(abs_tol, __fmul_rn(rel_tol, fabsf(w))))) {
            mismatches++;
            // A thread visits its elements in increasing order: its first mismatch is its smallest.
            if (first == 0) {
                first = ~i;
            }
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        mismatches += __shfl_down_sync(0xffffffffu, mismatches, offset);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, offset);
        first = f > first ? f : first;
        max_err = fmaxf(max_err, __shfl_down_sync(0xffffffffu, max_err, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        if (mismatches != 0) {
            atomicAdd(&tally[0], mismatches);
            atomicMax(&tally[1], first);
        }
        if (max_err > 0.0f) {
            atomicMax(&tally[2], (unsigned long long)__float_as_uint(max_err));
        }
    }
}

// One thread: the got and expected values at the first mismatch, for the error message.
extern "C" __global__ void compareFirst(const float *got, const float *want, unsigned long long *tally)
{
    if (tally[0] != 0) {
        unsigned long long i = ~tally[1];
        tally[3] = (unsigned long long)__float_as_uint(got[i]) |
                   ((unsigned long long)__float_as_uint(want[i]) << 32);
    }
}
