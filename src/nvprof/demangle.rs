//! Kernel names as nvprof printed them: a C++ symbol demangled (cpp_demangle), then written the way
//! NVIDIA's demangler wrote it: `(void)` for no parameters, `float const *` for pointers to const, and
//! non-type template arguments as `int=32` / `bool=1`. The base name (no parameters, no return type)
//! is what records and the kernel filter use.

use std::sync::LazyLock;

use regex::Regex;

/// A kernel's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelName {
    /// As nvprof printed it: `void matrixMulCUDA<int=32>(float*, float*, float*, int, int)`.
    pub full: String,
    /// Without return type and parameters: `matrixMulCUDA<int=32>` (what the kernel filter matches).
    pub base: String,
    /// The function identifier alone, `matrixMulCUDA`: a record's `kernel`, as the importers name it.
    pub short: String,
}

/// The names of `symbol` (mangled, or a plain C name, which is kept as it is).
pub fn kernel_name(symbol: &str) -> KernelName {
    let Ok(sym) = cpp_demangle::Symbol::new(symbol) else {
        return KernelName::plain(symbol);
    };
    let full = sym.demangle().unwrap_or_else(|_| symbol.to_string());
    let opts = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    let base = sym.demangle_with_options(&opts).unwrap_or_else(|_| full.clone());
    let literals = literals(symbol);
    let full = nvidia_style(&full, &literals);
    KernelName { short: crate::import::short_name(&full), full, base: nvidia_style(&base, &literals) }
}

impl KernelName {
    /// A name kept as it is in all three forms: a plain C kernel name, or an activity's (`[CUDA memset]`).
    pub fn plain(name: &str) -> Self {
        KernelName { full: name.to_string(), base: name.to_string(), short: name.to_string() }
    }

    /// The full name where it says more than the short one (a record's `signature`).
    pub fn signature(&self) -> Option<String> {
        (self.full != self.short).then(|| self.full.clone())
    }
}

/// Non-type template arguments of a mangled name, in order: (nvprof's type name, value as nvprof
/// printed it, cpp_demangle's spellings of it).
fn literals(mangled: &str) -> Vec<(&'static str, String, Vec<String>)> {
    static LIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"L([abchijlmstxy])(n?)([0-9]+)E").expect("valid"));
    LIT.captures_iter(mangled)
        .filter_map(|c| {
            let (code, neg, digits) = (&c[1], !c[2].is_empty(), &c[3]);
            let value = format!("{}{digits}", if neg { "-" } else { "" });
            let (ty, suffix) = match code {
                "i" => ("int", ""),
                "j" => ("unsigned int", "u"),
                "l" => ("long", "l"),
                "m" => ("unsigned long", "ul"),
                "x" => ("__int64", "ll"),
                "y" => ("unsigned __int64", "ull"),
                "s" => ("short", ""),
                "t" => ("unsigned short", ""),
                "c" => ("char", ""),
                "a" => ("signed char", ""),
                "h" => ("unsigned char", ""),
                "b" => ("bool", ""),
                _ => return None,
            };
            let printed = if code == "b" {
                vec![if digits == "0" { "false".into() } else { "true".into() }]
            } else {
                vec![format!("{value}{suffix}"), format!("({ty}){value}"), value.clone()]
            };
            let shown = if code == "b" { if digits == "0" { "0".to_string() } else { "1".to_string() } } else { value };
            Some((ty, shown, printed))
        })
        .collect()
}

/// cpp_demangle's text rewritten in NVIDIA's style.
fn nvidia_style(s: &str, literals: &[(&'static str, String, Vec<String>)]) -> String {
    let mut out = s.replace(" const*", " const *").replace(" const&", " const &");
    if out.ends_with("()") {
        out.truncate(out.len() - 2);
        out.push_str("(void)");
    }
    // Each literal, in order, where it stands as a whole template argument.
    let mut from = 0;
    for (ty, value, printed) in literals {
        let Some((at, len)) = printed.iter().find_map(|p| find_arg(&out[from..], p).map(|i| (from + i, p.len())))
        else {
            continue;
        };
        let with = format!("{ty}={value}");
        out.replace_range(at..at + len, &with);
        from = at + with.len();
    }
    out
}

/// Where `arg` stands as a whole template argument in `s` (after `<` or `, `, before `>` or `,`).
fn find_arg(s: &str, arg: &str) -> Option<usize> {
    let mut start = 0;
    while let Some(i) = s[start..].find(arg) {
        let at = start + i;
        let before = &s[..at];
        let after = &s[at + arg.len()..];
        if (before.ends_with('<') || before.ends_with(", ")) && (after.starts_with('>') || after.starts_with(',')) {
            return Some(at);
        }
        start = at + arg.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_nvprof_printed_them() {
        // The spellings are those of real nvprof outputs (tests/fixtures/nvprof/README.md).
        let n = kernel_name("_Z16sumMatrixOnGPU2DPfS_S_ii");
        assert_eq!(n.full, "sumMatrixOnGPU2D(float*, float*, float*, int, int)");
        assert_eq!(n.base, "sumMatrixOnGPU2D");
        assert_eq!(kernel_name("_Z9vectorAddPKfS0_Pfi").full, "vectorAdd(float const *, float const *, float*, int)");
        let n = kernel_name("_Z13matrixMulCUDAILi32EEvPfS0_S0_ii");
        assert_eq!(n.full, "void matrixMulCUDA<int=32>(float*, float*, float*, int, int)");
        assert_eq!(n.base, "matrixMulCUDA<int=32>");
        assert_eq!(n.short, "matrixMulCUDA");
        assert_eq!(n.signature().as_deref(), Some("void matrixMulCUDA<int=32>(float*, float*, float*, int, int)"));
        assert_eq!(kernel_name("_Z23code_without_divergencev").full, "code_without_divergence(void)");
        assert_eq!(kernel_name("_Z6kernelIfLb1EEvPT_").full, "void kernel<float, bool=1>(float*)");
        assert_eq!(kernel_name("_Z6kernelILj31ELb0EEvv").full, "void kernel<unsigned int=31, bool=0>(void)");
    }

    #[test]
    fn plain_c_names_stay() {
        assert_eq!(kernel_name("mm$_omp_fn$0").full, "mm$_omp_fn$0");
        assert_eq!(kernel_name("ptxcall_gpu_add1__1").base, "ptxcall_gpu_add1__1");
        assert_eq!(kernel_name("ptxcall_gpu_add1__1").signature(), None);
        assert_eq!(kernel_name("").full, "");
    }
}
