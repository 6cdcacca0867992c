// all_types.cu: one output of every element type a kernel file declares, each written from the same
// input; with BREAK = 1 one element of each output (index n / 3) is off by one, which verification must
// find in every type (scripts/device-check.sh sweeps BREAK = 0, 1).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T> __device__ T as(double v) { return (T)v; }
template <> __device__ __half as<__half>(double v) { return __double2half(v); }
template <> __device__ __nv_bfloat16 as<__nv_bfloat16>(double v) { return __double2bfloat16(v); }

__device__ void write_all(int i, bool off, __half *f16, __nv_bfloat16 *bf16, float *f32, double *f64,
                          signed char *i8, short *i16, int *i32, long long *i64, unsigned char *u8,
                          unsigned short *u16, unsigned int *u32, unsigned long long *u64, const double *x)
{
    double v = 3.0 * x[i], w = 100.0 * x[i], u = 100.0 * (x[i] + 1.0);
    if (off) {
        v += 1.0;
        w += 1.0;
        u += 1.0;
    }
    f16[i] = as<__half>(v);
    bf16[i] = as<__nv_bfloat16>(v);
    f32[i] = as<float>(v);
    f64[i] = v;
    i8[i] = as<signed char>(w);
    i16[i] = as<short>(w * 100.0);
    i32[i] = as<int>(w * 1e6);
    i64[i] = as<long long>(w * 1e15);
    u8[i] = as<unsigned char>(u);
    u16[i] = as<unsigned short>(u * 100.0);
    u32[i] = as<unsigned int>(u * 1e7);
    u64[i] = as<unsigned long long>(u * 1e16);
}

extern "C" __global__ void all_types(__half *f16, __nv_bfloat16 *bf16, float *f32, double *f64, signed char *i8,
                                     short *i16, int *i32, long long *i64, unsigned char *u8, unsigned short *u16,
                                     unsigned int *u32, unsigned long long *u64, const double *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) write_all(i, BREAK && i == n / 3, f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, x);
}

extern "C" __global__ void all_types_ref(__half *f16, __nv_bfloat16 *bf16, float *f32, double *f64,
                                         signed char *i8, short *i16, int *i32, long long *i64, unsigned char *u8,
                                         unsigned short *u16, unsigned int *u32, unsigned long long *u64,
                                         const double *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) write_all(i, false, f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, x);
}
