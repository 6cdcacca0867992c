//! The host headers a kernel source written for nvcc leans on, which NVRTC lacks: given to NVRTC by
//! name, so that `#include <math.h>`, `<stdint.h>` or `<assert.h>` compile, and pre-included, so that
//! the names nvcc's own implicit includes make visible on Linux (glibc's `uint`, `ushort`, `int32_t`,
//! `INT_MAX`; checked with nvcc 13.0 on the GPU machine, docs/KERNEL-FILE.md) are there too.
//!
//! Device code needs no declarations from them: NVRTC has printf, malloc, memcpy and the math functions
//! built in. What they hold is types and macros. The 64-bit types are `long long` and `unsigned long
//! long`, as CUDA's own headers declare them under NVRTC (CCCL's <cuda/std/cstdint>, which
//! cooperative_groups includes: `using int64_t = signed long long;`; cuda_pipeline_helpers.h), so that
//! a source including both compiles. glibc's `int64_t` is `long` on Linux x86-64; the two differ only
//! in overloads and name mangling, and a redeclaration as `long` failed against CCCL on the GPU machine
//! (cg_block_sum.cu, 2026-12-07).

/// Pre-included in every NVRTC compile (`-include`).
pub const PRELUDE_NAME: &str = "warpscope_nvcc_host.h";

/// What nvcc on Linux gives a `.cu` that includes nothing (glibc's <sys/types.h> and <limits.h>, which
/// cuda_runtime.h pulls in): the BSD and System V unsigned names, the signed exact-width types, and
/// the integer limits. `uint8_t` and `UINT32_MAX` are not among them (nvcc rejects them too).
const PRELUDE: &str = "// warpscope: the names nvcc's host headers give a .cu on Linux (sys/types.h, limits.h)
#ifndef WARPSCOPE_NVCC_HOST_H
#define WARPSCOPE_NVCC_HOST_H
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned long u_long;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
#ifndef CHAR_BIT
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-LONG_MAX - 1L)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#endif
#endif
";

/// <stdint.h>: the rest of the exact-width types and their limits.
const STDINT: &str = "// warpscope: <stdint.h> for NVRTC
#ifndef WARPSCOPE_STDINT_H
#define WARPSCOPE_STDINT_H
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef uint64_t uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
typedef uint64_t uint_least64_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-INT32_MAX - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295U
#define INT64_MIN (-INT64_MAX - 1LL)
#define INT64_MAX 9223372036854775807LL
#define UINT64_MAX 18446744073709551615ULL
#define SIZE_MAX 18446744073709551615UL
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) c##LL
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#define UINT64_C(c) c##ULL
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
#endif
";

/// <float.h>: the float and double limits.
const FLOAT: &str = "// warpscope: <float.h> for NVRTC
#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_EPSILON 1.19209290e-7F
#define DBL_EPSILON 2.2204460492503131e-16
#define FLT_MIN 1.17549435e-38F
#define DBL_MIN 2.2250738585072014e-308
#define FLT_MAX 3.40282347e+38F
#define DBL_MAX 1.7976931348623157e+308
#define FLT_TRUE_MIN 1.40129846e-45F
#define DBL_TRUE_MIN 4.9406564584124654e-324
#endif
";

/// <math.h>: the functions are NVRTC's built-ins; glibc's constants (which g++'s default `_GNU_SOURCE`
/// shows) and the special values.
const MATH: &str = "// warpscope: <math.h> for NVRTC (the functions are built in)
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define HUGE_VALF INFINITY
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
";

/// <assert.h>: device code's assert, as CUDA's headers define it (`__assertfail`), off under NDEBUG.
const ASSERT: &str = "// warpscope: <assert.h> for NVRTC
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
extern \"C\" __device__ void __assertfail(const char *, const char *, unsigned, const char *, unsigned long);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
#endif
";

/// A header whose declarations device code does not need.
const EMPTY: &str = "// warpscope: a host header; under NVRTC device printf, malloc, memcpy and memset need none\n";

/// Headers given by name: (the names it is included by, its text). stdio and stdlib are empty (device
/// printf and malloc are built in), as are string.h's memcpy and memset.
pub const HEADERS: &[(&[&str], &str)] = &[
    (&["stdio.h", "cstdio", "stdlib.h", "cstdlib", "string.h", "cstring"], EMPTY),
    (&["stdint.h", "cstdint", "inttypes.h", "cinttypes"], STDINT),
    (&["limits.h", "climits"], EMPTY),
    (&["float.h", "cfloat"], FLOAT),
    (&["math.h", "cmath"], MATH),
    (&["assert.h", "cassert"], ASSERT),
    (&[PRELUDE_NAME], PRELUDE),
];

/// Every header as (name, text), the prelude's included: what NVRTC is given.
pub fn all() -> impl Iterator<Item = (&'static str, &'static str)> {
    HEADERS.iter().flat_map(|&(names, text)| names.iter().map(move |&n| (n, text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_header_is_given_once_and_its_conditionals_close() {
        let mut names: Vec<&str> = all().map(|(n, _)| n).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a header named twice");
        for (name, text) in all() {
            let opens = text.lines().filter(|l| l.trim_start().starts_with("#if")).count();
            let closes = text.lines().filter(|l| l.trim_start().starts_with("#endif")).count();
            assert_eq!(opens, closes, "{name}");
        }
        // The prelude holds what nvcc 13.0 accepted in a .cu that includes nothing, not what it refused.
        assert!(PRELUDE.contains("typedef unsigned int uint;") && PRELUDE.contains("#define INT_MAX"));
        assert!(!PRELUDE.contains("uint8_t") && !PRELUDE.contains("UINT32_MAX"));
    }
}
