//! Kernel names as profilers print them: mangled (`_Z6vecAddIfEvPT_S1_S1_i`) or demangled with return
//! types, namespaces, template arguments that hold parentheses (`(int)128`, lambdas, `(anonymous
//! namespace)`) and parameter lists. Records keep the full demangled signature and match on the short
//! name: the function's identifier alone.

/// `raw` demangled when it is an Itanium-mangled name (`_Z...`), else as printed.
pub fn demangle(raw: &str) -> String {
    let raw = raw.trim();
    if raw.starts_with("_Z")
        && let Ok(sym) = cpp_demangle::Symbol::new(raw)
        && let Ok(s) = sym.demangle()
    {
        return s;
    }
    raw.to_string()
}

/// The function identifier of a signature: no return type, namespace, template arguments or
/// parameters (`void at::native::(anonymous namespace)::k<float, (int)4>(float*)` -> `k`).
pub fn short_name(signature: &str) -> String {
    let s = signature.trim();
    let head = &s[..params_start(s)];
    let head = strip_template_args(head.trim_end());
    let name = last_component(head).trim();
    if name.is_empty() { s.to_string() } else { name.to_string() }
}

/// The kernel's short name and, when it says more, its full demangled signature.
pub fn split(raw: &str) -> (String, Option<String>) {
    let full = demangle(raw);
    let short = short_name(&full);
    let signature = (full != short).then_some(full);
    (short, signature)
}

/// Byte offset of the parameter list: the first `(` outside template arguments, brackets and
/// parentheses that does not open `(anonymous namespace)`; the end when there is none.
fn params_start(s: &str) -> usize {
    let (mut angle, mut paren, mut square) = (0i32, 0i32, 0i32);
    let mut skip_to = 0;
    for (i, c) in s.char_indices() {
        if i < skip_to {
            continue;
        }
        match c {
            '<' => angle += 1,
            '>' if angle > 0 && !s[..i].ends_with('-') => angle -= 1,
            '[' => square += 1,
            ']' => square = (square - 1).max(0),
            '(' if angle == 0 && paren == 0 && square == 0 => {
                if s[i..].starts_with("(anonymous namespace)") {
                    skip_to = i + "(anonymous namespace)".len();
                } else if !s[..i].ends_with("operator") {
                    return i;
                } else {
                    paren += 1;
                }
            }
            '(' => paren += 1,
            ')' => paren = (paren - 1).max(0),
            _ => {}
        }
    }
    s.len()
}

/// `ns::k<int, 4>` -> `ns::k` (only template arguments at the very end).
fn strip_template_args(s: &str) -> &str {
    if !s.ends_with('>') {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return s[..i].trim_end();
                }
            }
            _ => {}
        }
    }
    s
}

/// What follows the last `::` or space outside brackets (drops namespaces and the return type).
fn last_component(s: &str) -> &str {
    let mut depth = 0i32;
    let bytes = s.as_bytes();
    for (i, c) in s.char_indices().rev() {
        match c {
            '>' | ')' | ']' => depth += 1,
            '<' | '(' | '[' => depth -= 1,
            ' ' if depth == 0 => return &s[i + 1..],
            ':' if depth == 0 && i > 0 && bytes[i - 1] == b':' => return &s[i + 1..],
            _ => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_of_real_signatures() {
        for (sig, short) in [
            ("sumMatrixOnGPU2D(float*, float*, float*, int, int)", "sumMatrixOnGPU2D"),
            ("void transpose<32>(float const*, float*)", "transpose"),
            ("rgbToGray", "rgbToGray"),
            (
                "void better_reduce_kernel<unsigned int=1024>(float*, float*, unsigned int, unsigned int)",
                "better_reduce_kernel",
            ),
            (
                "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t>, false, true, false, false, true, 0>(Flash_fwd_params)",
                "flash_fwd_kernel",
            ),
            (
                "enable_if<!T7, void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13)",
                "kernel",
            ),
            (
                "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<double, double, unsigned int, 1, 4>(at::cuda::detail::TensorInfo<double, unsigned int>, double)",
                "fused_dropout_kernel_vec",
            ),
            (
                "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, at::detail::Array<char *, (int)1>>(int, T2, T3)",
                "vectorized_elementwise_kernel",
            ),
            ("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<(int)128, (bool)0>>(T1::Params)", "Kernel"),
            (
                "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm",
                "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm",
            ),
            ("__kernel___forma_kernel__0__(float*, int, int, float*)", "__kernel___forma_kernel__0__"),
            ("mm$_omp_fn$0", "mm$_omp_fn$0"),
        ] {
            assert_eq!(short_name(sig), short, "{sig}");
        }
    }

    #[test]
    fn mangled_names_are_demangled() {
        assert_eq!(demangle("_Z6vecAddIfEvPT_S1_S1_i"), "void vecAdd<float>(float*, float*, float*, int)");
        let (short, sig) = split("_Z6vecAddIfEvPT_S1_S1_i");
        assert_eq!(short, "vecAdd");
        assert_eq!(sig.as_deref(), Some("void vecAdd<float>(float*, float*, float*, int)"));
        assert_eq!(split("vecAdd"), ("vecAdd".to_string(), None));
        // Not a valid mangling: kept as printed.
        assert_eq!(demangle("_Zjunk"), "_Zjunk");
    }
}
