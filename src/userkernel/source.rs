//! What can be learned from a kernel's files without compiling them: the `.cu` text with the local
//! headers it includes (for the cache key and for "does this parameter appear in the source"), the
//! identifiers it uses, and the parameter list of a `__global__` function as written; the `.entry`
//! declarations of PTX (names and parameter sizes, what the driver will be handed); and the kernel
//! names a cubin carries.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A `.cu` file and the local headers it includes (`#include "x.h"`, found beside the including file or
/// in an `-I` folder), each with its text, the main file first.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaSource {
    /// (path, text) of every file, the main file first.
    pub files: Vec<(PathBuf, String)>,
}

impl CudaSource {
    /// Reads `path` and, recursively, the local headers it includes. Headers that are not found locally
    /// (CUDA's own, or ones NVRTC finds elsewhere) are left to the compiler.
    pub fn read(path: &Path, include_dirs: &[PathBuf]) -> Result<CudaSource, String> {
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        let mut todo = vec![path.to_path_buf()];
        while let Some(p) = todo.pop() {
            if files.iter().any(|(q, _)| *q == p) {
                continue;
            }
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            for name in local_includes(&text) {
                let found = std::iter::once(&dir).chain(include_dirs).map(|d| d.join(&name)).find(|c| c.is_file());
                if let Some(f) = found {
                    todo.push(f);
                }
            }
            files.push((p, text));
        }
        Ok(CudaSource { files })
    }

    /// The main file's text.
    pub fn main(&self) -> &str {
        &self.files[0].1
    }

    /// Every identifier in the files, comments and string literals left out.
    pub fn identifiers(&self) -> BTreeSet<String> {
        self.files.iter().flat_map(|(_, t)| identifiers(t)).collect()
    }
}

/// The names of `#include "..."` lines.
fn local_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim();
            let rest = l.strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// C/C++ text with comments, string and character literals blanked (same length, lines kept).
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            out.extend(b[i..end].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
            i = end;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                let skip = (if b[i] == b'\\' { 2 } else { 1 }).min(b.len() - i);
                out.extend(std::iter::repeat_n(b' ', skip));
                i += skip;
            }
            if i < b.len() {
                out.push(b' ');
                i += 1;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

fn identifiers(text: &str) -> BTreeSet<String> {
    let clean = strip_comments(text);
    clean
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}

/// One parameter of a `__global__` function as written in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceParam {
    /// The declaration (`const float *__restrict__ a`).
    pub text: String,
    /// Whether it is a pointer (or an array, which C passes as one).
    pub pointer: bool,
}

/// The parameters of the one `__global__` function called `entry` in `text` (its definition, where
/// prototypes declare it too: Kernel Tuner's files declare their kernels in an `extern "C"` block
/// first); `None` when there is no such function or several (overloads, templates): then only the
/// compiled PTX can tell.
pub fn signature(text: &str, entry: &str) -> Option<Vec<SourceParam>> {
    let clean = strip_comments(text);
    // (parameters, whether a body follows: a definition, not a prototype)
    let mut found: Vec<(Vec<SourceParam>, bool)> = Vec::new();
    let mut from = 0;
    while let Some(k) = clean[from..].find(entry) {
        let at = from + k;
        from = at + entry.len();
        let before = clean[..at].chars().next_back();
        let after = clean[from..].trim_start();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') || !after.starts_with('(') {
            continue;
        }
        // The declaration this name belongs to starts after the previous ';', '}' or '{' (or a
        // preprocessor line) and must say __global__.
        let head_start = clean[..at].rfind([';', '}', '{', '#']).map_or(0, |p| p + 1);
        let head = &clean[head_start..at];
        let head = head.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" ");
        if !head.split_whitespace().any(|w| w == "__global__") {
            continue;
        }
        let open = clean.len() - after.len();
        let mut depth = 0i32;
        let mut close = None;
        for (i, c) in clean[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let close = close?;
        let list = &clean[open + 1..close];
        // What follows the list up to `{` or `;` (qualifiers, `__launch_bounds__(...)` aside).
        let rest = &clean[close + 1..];
        let body = rest.find(['{', ';']).is_some_and(|i| rest.as_bytes()[i] == b'{');
        found.push((split_params(list), body));
    }
    let definitions = found.iter().filter(|f| f.1).count();
    match (definitions, found.len()) {
        (1, _) => found.into_iter().find(|f| f.1).map(|f| f.0),
        (0, 1) => found.pop().map(|f| f.0),
        _ => None,
    }
}

fn split_params(list: &str) -> Vec<SourceParam> {
    let (mut parts, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in list.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    let parts: Vec<String> = parts.iter().map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    if parts.len() == 1 && (parts[0].is_empty() || parts[0] == "void") {
        return Vec::new();
    }
    parts.into_iter().map(|text| SourceParam { pointer: text.contains('*') || text.contains('['), text }).collect()
}

/// One parameter of a PTX `.entry`.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxParam {
    /// Its PTX type (`.u64`, `.f32`, `.b8` for a struct or array).
    pub ty: String,
    /// Bytes.
    pub size: u64,
    /// Declared as a pointer (`.ptr`), which nvcc writes for some kernel pointers.
    pub ptr: bool,
}

/// A kernel declared in PTX: `.entry name(.param ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxEntry {
    /// The name as the driver knows it (mangled for C++ linkage).
    pub name: String,
    /// The template instantiations, as a kernel file names them (`k<float, 64 / 2>`), that NVRTC lowered
    /// to this entry (from [`LOWERED`] lines the compile put at the PTX's top).
    pub expressions: Vec<String>,
    /// Its parameters in order.
    pub params: Vec<PtxParam>,
}

/// How a compile records which name expression NVRTC lowered to which entry: a PTX comment line
/// `// warpscope lowered: EXPRESSION = MANGLED` (PTX takes comments anywhere; the cache keeps them).
pub const LOWERED: &str = "// warpscope lowered: ";

/// Every `.entry` of a PTX module.
pub fn ptx_entries(ptx: &str) -> Vec<PtxEntry> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(k) = rest.find(".entry") {
        let after = &rest[k + ".entry".len()..];
        rest = after;
        if !after.starts_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let after = after.trim_start();
        let name_end = after.find(|c: char| c == '(' || c.is_whitespace()).unwrap_or(after.len());
        let name = after[..name_end].to_string();
        let tail = after[name_end..].trim_start();
        let params = match tail.strip_prefix('(') {
            Some(list) => {
                let list = &list[..list.find(')').unwrap_or(list.len())];
                list.split(',').filter(|p| p.contains(".param")).map(ptx_param).collect()
            }
            None => Vec::new(),
        };
        out.push(PtxEntry { name, params, expressions: Vec::new() });
    }
    for line in ptx.lines() {
        if let Some((expr, mangled)) = line.strip_prefix(LOWERED).and_then(|l| l.rsplit_once(" = "))
            && let Some(e) = out.iter_mut().find(|e| e.name == mangled.trim())
        {
            e.expressions.push(expr.to_string());
        }
    }
    out
}

fn ptx_param(decl: &str) -> PtxParam {
    let words: Vec<&str> = decl.split_whitespace().collect();
    let ty = words
        .iter()
        .find(|w| {
            let w = w.trim_start_matches('.');
            w.len() >= 2 && matches!(w.as_bytes()[0], b'u' | b's' | b'f' | b'b') && w[1..].parse::<u32>().is_ok()
        })
        .map_or(String::from(".b8"), |w| w.to_string());
    let bits: u64 = ty[2..].parse().unwrap_or(8);
    let count = words
        .last()
        .and_then(|w| w.split_once('['))
        .and_then(|(_, n)| n.trim_end_matches(']').parse::<u64>().ok())
        .unwrap_or(1);
    PtxParam { size: bits / 8 * count, ptr: words.contains(&".ptr"), ty }
}

/// The readable name of a mangled C++ symbol without its parameters (`vector_add`, `ns::f<float>`),
/// and its parameter list (`float*, float const*, int`); `None` for a plain (extern "C") name.
pub fn demangle(symbol: &str) -> Option<(String, String)> {
    let sym = cpp_demangle::Symbol::new(symbol).ok()?;
    let full = sym.demangle().ok()?;
    let opts = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    let bare = sym.demangle_with_options(&opts).ok()?;
    let params = full.rfind(')').and_then(|close| {
        let mut depth = 0;
        full[..close].char_indices().rev().find_map(|(i, c)| match c {
            ')' => {
                depth += 1;
                None
            }
            '(' if depth == 0 => Some(full[i + 1..close].to_string()),
            '(' => {
                depth -= 1;
                None
            }
            _ => None,
        })
    });
    Some((bare, params.unwrap_or_default()))
}

/// The kernels of a cubin (ELF sections `.text.NAME`).
pub fn cubin_kernels(bytes: &[u8]) -> Result<Vec<String>, String> {
    if !bytes.starts_with(b"\x7fELF") {
        return Err("not a cubin (no ELF header)".into());
    }
    let mut out = Vec::new();
    for part in bytes.split(|&b| b == 0) {
        if let Some(name) = part.strip_prefix(b".text.")
            && let Ok(name) = std::str::from_utf8(name)
            && !name.is_empty()
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Whether `bytes` look like a fatbinary (`cuobjdump`'s container: magic 0xBA55ED50).
pub fn is_fatbin(bytes: &[u8]) -> bool {
    bytes.starts_with(&0xBA55_ED50u32.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CU: &str = r#"
#include "common.h"
#define X 1 // a comment mentioning ghost_param
/* block comment: tile_size_y */
__global__ void helper_kernel(int *x) {}
template <int N> __device__ float f(float a);
extern "C" __global__ void __launch_bounds__(256)
conv(float *__restrict__ out, const float *in, const float filter[], int w, int h)
{
    const char *s = "tile_size_z";
    out[0] = in[0] * tile_size_x;
}
"#;

    #[test]
    fn identifiers_skip_comments_and_strings() {
        let ids = identifiers(CU);
        assert!(ids.contains("tile_size_x"));
        assert!(ids.contains("conv"));
        for gone in ["ghost_param", "tile_size_y", "tile_size_z"] {
            assert!(!ids.contains(gone), "{gone}");
        }
    }

    #[test]
    fn signatures_as_written() {
        let p = signature(CU, "conv").unwrap();
        assert_eq!(p.len(), 5);
        assert!(p[0].pointer && p[1].pointer && p[2].pointer && !p[3].pointer);
        assert_eq!(p[1].text, "const float *in");
        assert_eq!(signature(CU, "helper_kernel").unwrap().len(), 1);
        assert!(signature(CU, "f").is_none(), "a __device__ function is no kernel");
        assert!(signature(CU, "nope").is_none());
        assert_eq!(signature("__global__ void k(void) {}", "k").unwrap(), vec![]);
        let two = "__global__ void k(int a) {}\n__global__ void k(float a, float b) {}";
        assert!(signature(two, "k").is_none(), "overloads: the compiled PTX decides");
        // Kernel Tuner's zeromeanfilter.cu: prototypes in an `extern "C"` block, definitions below.
        let proto = "extern \"C\" {\n__global__ void mean(int h, int w, float* input);\n}\n__global__ void mean(int h, int w, float *input) {\n}\n";
        assert_eq!(signature(proto, "mean").map(|p| p.len()), Some(3), "a prototype and its definition are one");
        let bounds = "__global__ void __launch_bounds__(256) b(float *x);\n__global__ void __launch_bounds__(256) b(float *x) { }\n";
        assert_eq!(signature(bounds, "b").map(|p| p.len()), Some(1));
    }

    #[test]
    fn local_headers_are_read_and_hashed_with_the_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), "#include \"a.h\"\n#include <cuda_fp16.h>\n__global__ void k() {}")
            .unwrap();
        std::fs::write(dir.path().join("a.h"), "#include \"b.h\"\n#define TILE tile_size_x").unwrap();
        std::fs::create_dir(dir.path().join("inc")).unwrap();
        std::fs::write(dir.path().join("inc/b.h"), "// b").unwrap();
        let s = CudaSource::read(&dir.path().join("k.cu"), &[dir.path().join("inc")]).unwrap();
        assert_eq!(s.files.len(), 3);
        assert!(s.identifiers().contains("tile_size_x"), "a parameter used in a header counts");
    }

    const PTX: &str = "
.version 9.0
.target sm_75
.address_size 64

	// .globl	sumMatrixOnGPU2D

.visible .entry sumMatrixOnGPU2D(
	.param .u64 .ptr .align 1 sumMatrixOnGPU2D_param_0,
	.param .u64 sumMatrixOnGPU2D_param_1,
	.param .f32 sumMatrixOnGPU2D_param_2,
	.param .align 8 .b8 sumMatrixOnGPU2D_param_3[24]
)
{
	ret;
}
.entry _Z10vector_addPfPKfi(
	.param .u64 _Z10vector_addPfPKfi_param_0
)
{
}
";

    #[test]
    fn ptx_entries_and_parameter_sizes() {
        let e = ptx_entries(PTX);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "sumMatrixOnGPU2D");
        let sizes: Vec<u64> = e[0].params.iter().map(|p| p.size).collect();
        assert_eq!(sizes, vec![8, 8, 4, 24]);
        assert!(e[0].params[0].ptr);
        assert_eq!(e[0].params[2].ty, ".f32");
        assert_eq!(e[1].name, "_Z10vector_addPfPKfi");
    }

    #[test]
    fn mangled_names_read_back() {
        let (name, params) = demangle("_Z10vector_addPfPKfi").unwrap();
        assert_eq!(name, "vector_add");
        assert_eq!(params, "float*, float const*, int");
        assert!(demangle("sumMatrixOnGPU2D").is_none());
    }

    #[test]
    fn cubin_kernel_names() {
        let fake = b"\x7fELF....\0.text.kernel_a\0.nv.info.kernel_a\0.text.kernel_b\0";
        assert_eq!(cubin_kernels(fake).unwrap(), vec!["kernel_a", "kernel_b"]);
        assert!(cubin_kernels(b"garbage").is_err());
        assert!(is_fatbin(&[0x50, 0xED, 0x55, 0xBA, 1, 0]));
    }
}
