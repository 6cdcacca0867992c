// Verification on the GPU: every element of an output compared with the CPU reference (uploaded once per
// sweep), so that only a tally crosses PCIe, not the outputs. The arithmetic is warpscope's CPU comparison
// (src/verify.rs, Tolerance::accepts) rounded the same way: |got - want| <= abs + rel * |want| in float,
// each operation rounded to nearest and never fused, and NaN (the poison) never passing.
//
// tally[0]: mismatches; tally[1]: ~(index of the first mismatch), 0 when none; tally[2]: the bits of the
// largest finite |got - want| (non-negative floats order as their bits); tally[3]: got | expected << 32 at
// the first mismatch, written by compareFirst. The caller zeroes the tally before compareOutputs.

// Adds one thread's mismatches, first mismatch (~index, 0 for none) and largest error (the bits of a
// non-negative float or double, which order as the values do) into a tally, a warp at a time.
__device__ __forceinline__ void add_to_tally(unsigned long long mismatches, unsigned long long first,
                                             unsigned long long max_err_bits, unsigned long long *tally)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        mismatches += __shfl_down_sync(0xffffffffu, mismatches, offset);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, offset);
        first = f > first ? f : first;
        unsigned long long m = __shfl_down_sync(0xffffffffu, max_err_bits, offset);
        max_err_bits = m > max_err_bits ? m : max_err_bits;
    }
    if ((threadIdx.x & 31) == 0) {
        if (mismatches != 0) {
            atomicAdd(&tally[0], mismatches);
            atomicMax(&tally[1], first);
        }
        if (max_err_bits != 0) {
            atomicMax(&tally[2], max_err_bits);
        }
    }
}

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
    add_to_tally(mismatches, first, (unsigned long long)__float_as_uint(max_err), tally);
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

// A kernel file's outputs (src/userkernel/sweep.rs), compared with the expected ones kept on the device (the
// first configuration's outputs, a reference kernel's, or .npy files'): warpscope's CPU comparison of user
// outputs (src/userkernel/check.rs, numpy.allclose's rule) in double, each operation rounded to nearest and
// never fused: |got - want| <= atol + rtol * |want|, or got == want; NaN (the poison of float outputs) never
// passes; with `exact`, integers must be equal. One compare_T and first_T entry per element type. The tally
// as above, but for tally[2], the bits of a double, and tally[3], tally[4]: the bits of got and want at the
// first mismatch as doubles, written by first_T. The caller zeroes the tally.

// Half-precision elements by their bits (the toolkit's cuda_fp16.h needs CCCL's headers, which the pinned
// nvcc wheels lack): both widen to float exactly.
struct f16bits {
    unsigned short bits;
};
struct bf16bits {
    unsigned short bits;
};

__device__ __forceinline__ double as_double(double v) { return v; }
__device__ __forceinline__ double as_double(float v) { return (double)v; }
__device__ __forceinline__ double as_double(f16bits v)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
    return (double)f;
}
__device__ __forceinline__ double as_double(bf16bits v) { return (double)__uint_as_float((unsigned int)v.bits << 16); }
__device__ __forceinline__ double as_double(signed char v) { return (double)v; }
__device__ __forceinline__ double as_double(short v) { return (double)v; }
__device__ __forceinline__ double as_double(int v) { return (double)v; }
__device__ __forceinline__ double as_double(long long v) { return __ll2double_rn(v); }
__device__ __forceinline__ double as_double(unsigned char v) { return (double)v; }
__device__ __forceinline__ double as_double(unsigned short v) { return (double)v; }
__device__ __forceinline__ double as_double(unsigned int v) { return (double)v; }
__device__ __forceinline__ double as_double(unsigned long long v) { return __ull2double_rn(v); }

// Integers compared exactly: equal values have equal bits.
template <typename T> __device__ __forceinline__ bool same(T g, T w) { return g == w; }
template <> __device__ __forceinline__ bool same(f16bits g, f16bits w) { return g.bits == w.bits; }
template <> __device__ __forceinline__ bool same(bf16bits g, bf16bits w) { return g.bits == w.bits; }

template <typename T>
__device__ __forceinline__ void compare(const T *got, const T *want, unsigned long long n, double atol, double rtol,
                                        int exact, unsigned long long *tally)
{
    unsigned long long mismatches = 0, first = 0;
    double max_err = 0.0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        T g = got[i], w = want[i];
        double gd = as_double(g), wd = as_double(w);
        double err = fabs(__dsub_rn(gd, wd));
        if (isfinite(err)) {
            max_err = fmax(max_err, err);
        }
        bool ok = exact ? same(g, w) : (err <= __dadd_rn(atol, __dmul_rn(rtol, fabs(wd))) || gd == wd);
        if (!ok) {
            mismatches++;
            // A thread visits its elements in increasing order: its first mismatch is its smallest.
            if (first == 0) {
                first = ~i;
            }
        }
    }
    add_to_tally(mismatches, first, (unsigned long long)__double_as_longlong(max_err), tally);
}

template <typename T> __device__ __forceinline__ void first(const T *got, const T *want, unsigned long long *tally)
{
    if (tally[0] != 0) {
        unsigned long long i = ~tally[1];
        tally[3] = (unsigned long long)__double_as_longlong(as_double(got[i]));
        tally[4] = (unsigned long long)__double_as_longlong(as_double(want[i]));
    }
}

#define ENTRIES(NAME, T)                                                                                           \
    extern "C" __global__ void compare_##NAME(const T *got, const T *want, unsigned long long n, double atol,      \
                                              double rtol, int exact, unsigned long long *tally)                   \
    {                                                                                                              \
        compare<T>(got, want, n, atol, rtol, exact, tally);                                                        \
    }                                                                                                              \
    extern "C" __global__ void first_##NAME(const T *got, const T *want, unsigned long long *tally)               \
    {                                                                                                              \
        first<T>(got, want, tally);                                                                                \
    }

ENTRIES(f16, f16bits)
ENTRIES(bf16, bf16bits)
ENTRIES(f32, float)
ENTRIES(f64, double)
ENTRIES(i8, signed char)
ENTRIES(i16, short)
ENTRIES(i32, int)
ENTRIES(i64, long long)
ENTRIES(u8, unsigned char)
ENTRIES(u16, unsigned short)
ENTRIES(u32, unsigned int)
ENTRIES(u64, unsigned long long)
