// Verification of a kernel file's outputs on the GPU: each element of an output compared with the expected
// one (kept on the device: the first configuration's outputs, a reference kernel's, or .npy files'), so that
// only a tally crosses PCIe, not the outputs. The arithmetic is warpscope's CPU comparison of user outputs
// (src/userkernel/check.rs, numpy.allclose's rule) in double, each operation rounded to nearest and never
// fused: |got - want| <= atol + rtol * |want|, or got == want; NaN (the poison of float outputs) never
// passes; with `exact`, integers must be equal. One entry per element type.
//
// tally[0]: mismatches; tally[1]: ~(index of the first mismatch), 0 when none; tally[2]: the bits of the
// largest finite |got - want| as a double (non-negative doubles order as their bits); tally[3], tally[4]:
// the bits of got and want at the first mismatch as doubles, written by the type's First entry. The caller
// zeroes the tally before the comparison.

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
    for (int offset = 16; offset > 0; offset /= 2) {
        mismatches += __shfl_down_sync(0xffffffffu, mismatches, offset);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, offset);
        first = f > first ? f : first;
        max_err = fmax(max_err, __shfl_down_sync(0xffffffffu, max_err, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        if (mismatches != 0) {
            atomicAdd(&tally[0], mismatches);
            atomicMax(&tally[1], first);
        }
        if (max_err > 0.0) {
            atomicMax(&tally[2], (unsigned long long)__double_as_longlong(max_err));
        }
    }
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
