//! A kernel's source read as its preprocessor would, without compiling it. Which `#define`s it makes
//! whatever warpscope passes with `-D`: a parameter the source fixes (`#define WIDTH 4096`, not under
//! `#ifndef WIDTH`) keeps the source's value, as the preprocessor lets a later definition win, so
//! sweeping it would time one kernel under many labels, and a problem size the source fixes differently
//! would launch a grid for the wrong problem; the conditionals a command-line define decides
//! (`#ifdef`, `#ifndef`, `#if defined(..)`, `#if 0/1`) are followed, and a definition under any other
//! condition is not called fixed. And Kernel Tuner's rewrite of loop-unroll parameters, which `#pragma
//! unroll` needs as constants, not macros.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::expr::{Expr, Value};
use super::source::{CudaSource, strip_comments};

/// Kernel Tuner's mark of a loop-unroll parameter: `#pragma unroll` takes a constant expression, not a
/// macro (NVRTC ignores the pragma, with a warning, when its argument is an undefined name), so such a
/// parameter is given as `constexpr int NAME = N;`, and 0 ("let the compiler decide") removes the
/// pragma that names it, as Kernel Tuner's `prepare_kernel_string` does.
pub const LOOP_UNROLL: &str = "loop_unroll_factor";

/// `text` with Kernel Tuner's loop-unroll parameters applied: `constexpr int NAME = N;` for each
/// non-zero one ahead of the text (then `#line 1`, so messages and the line table keep the file's
/// lines), and each `#pragma unroll NAME` of a zero one blanked (the line stays, empty).
pub fn unrolled(text: &str, factors: &[(String, i64)]) -> String {
    let mut out: String =
        factors.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("constexpr int {n} = {v};\n")).collect();
    if !out.is_empty() {
        out.push_str("#line 1\n");
    }
    let zero: Vec<&str> = factors.iter().filter(|(_, v)| *v == 0).map(|(n, _)| n.as_str()).collect();
    for line in text.split_inclusive('\n') {
        let words: Vec<&str> = line.trim_start().trim_start_matches('#').split_whitespace().collect();
        let pragma = line.trim_start().starts_with('#')
            && matches!(words.as_slice(), ["pragma", "unroll", name, ..] if zero.contains(name));
        if pragma {
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A `#define` the source makes unconditionally.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedDefine {
    /// The macro.
    pub name: String,
    /// Its replacement text, as written (trimmed).
    pub value: String,
    /// The file that defines it.
    pub file: PathBuf,
    /// Its line (from 1).
    pub line: usize,
}

impl FixedDefine {
    /// Whether the source's value surely differs from `v`, so that `v` would not reach the kernel: a
    /// number the source's value evaluates to otherwise (`(256)`, `256u` and `16 * 16` are 256), or, for
    /// a word (`float`), another text. A value that names something (`blockDim.x`, `N * 2`) cannot be
    /// judged from the text and is not called different: the kernel may well follow the launch.
    pub fn contradicts(&self, v: &Value) -> bool {
        let want = v.to_string();
        if self.value == want {
            return false;
        }
        let num = |x: &Value| match x {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(*b as i64 as f64),
            Value::Str(_) => None,
        };
        let source = Expr::parse(&integer_suffixes_removed(&self.value)).ok().and_then(|e| e.eval(&|_| None).ok());
        match (source.as_ref().and_then(num), num(v)) {
            (Some(got), Some(w)) => got != w,
            // A word passed (`T=float`) against another word or a number the source fixes.
            (_, None) => source.is_some() || self.value.split_whitespace().count() == 1,
            (None, Some(_)) => false,
        }
    }

    /// `k.cu:3 fixes WIDTH at 4096 (a #define outside #ifndef WIDTH)`.
    pub fn describe(&self) -> String {
        format!(
            "{}:{} fixes {} at {} (a #define outside #ifndef {})",
            self.file.display(),
            self.line,
            self.name,
            self.value,
            self.name
        )
    }
}

/// `256u` -> `256`, `4096UL` -> `4096`: C's integer suffixes, which expressions do not take (and which
/// a demangled template argument carries: `reduce6<float, 256u, true>`).
pub fn integer_suffixes_removed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        let starts_number = c.is_ascii_digit() && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if starts_number {
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                if !matches!(chars[i], 'u' | 'U' | 'l' | 'L') {
                    out.push(chars[i]);
                }
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Whether a conditional's branch is taken: known either way, or not decidable from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taken {
    Yes,
    No,
    Maybe,
}

impl Taken {
    fn not(self) -> Taken {
        match self {
            Taken::Yes => Taken::No,
            Taken::No => Taken::Yes,
            Taken::Maybe => Taken::Maybe,
        }
    }

    fn or(self, other: Taken) -> Taken {
        match (self, other) {
            (Taken::Yes, _) | (_, Taken::Yes) => Taken::Yes,
            (Taken::No, Taken::No) => Taken::No,
            _ => Taken::Maybe,
        }
    }
}

/// One open conditional: whether its current branch is taken, and whether an earlier one was.
struct Open {
    now: Taken,
    before: Taken,
}

/// The `#define`s of `src` (every file, the main one first) that hold whatever `given` (the names
/// warpscope passes with `-D`) says. Each file is read top to bottom: a name is defined where `given`
/// has it or the file defined it above (under a taken branch); where another file defines it (the
/// order of inclusion is not followed), for reserved names (`__CUDACC__`, `_WIN32`) and under
/// undecidable branches it is not known; otherwise it is undefined.
pub fn fixed_defines(src: &CudaSource, given: &BTreeSet<String>) -> Vec<FixedDefine> {
    let cleaned: Vec<(PathBuf, Vec<(usize, String)>)> =
        src.files.iter().map(|(p, t)| (p.clone(), directives(&strip_comments(t)))).collect();
    let defines_of = |ds: &[(usize, String)]| -> BTreeSet<String> {
        ds.iter().filter_map(|(_, d)| d.strip_prefix("define").map(|r| macro_name(r).to_string())).collect()
    };
    let mut out = Vec::new();
    for (fi, (file, ds)) in cleaned.iter().enumerate() {
        let elsewhere: BTreeSet<String> =
            cleaned.iter().enumerate().filter(|(fj, _)| *fj != fi).flat_map(|(_, (_, d))| defines_of(d)).collect();
        let mut seen: BTreeMap<String, Taken> = BTreeMap::new();
        let mut stack: Vec<Open> = Vec::new();
        for (line, d) in ds {
            let defined = |name: &str| -> Taken {
                if given.contains(name) {
                    Taken::Yes
                } else if let Some(t) = seen.get(name) {
                    *t
                } else if elsewhere.contains(name) || name.starts_with('_') {
                    Taken::Maybe
                } else {
                    Taken::No
                }
            };
            let condition = |text: &str| -> Taken {
                let t: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let (negated, rest) = match t.strip_prefix('!') {
                    Some(r) => (true, r.trim_start()),
                    None => (false, t.as_str()),
                };
                let result = if let Some(r) = rest.strip_prefix("defined") {
                    let name = r.trim().trim_start_matches('(').trim_end_matches(')').trim();
                    if is_identifier(name) { defined(name) } else { Taken::Maybe }
                } else {
                    match rest {
                        "0" => Taken::No,
                        "1" => Taken::Yes,
                        _ => Taken::Maybe,
                    }
                };
                if negated { result.not() } else { result }
            };
            let word_end = d.find(|c: char| c.is_whitespace() || c == '(' || c == '!').unwrap_or(d.len());
            let (word, rest) = (&d[..word_end], d[word_end..].trim());
            let active = stack.iter().fold(Taken::Yes, |a, o| match (a, o.now) {
                (Taken::No, _) | (_, Taken::No) => Taken::No,
                (Taken::Yes, Taken::Yes) => Taken::Yes,
                _ => Taken::Maybe,
            });
            match word {
                "ifdef" | "ifndef" | "if" => {
                    let now = match word {
                        "ifdef" => defined(macro_name(rest)),
                        "ifndef" => defined(macro_name(rest)).not(),
                        _ => condition(rest),
                    };
                    stack.push(Open { now, before: Taken::No });
                }
                "elif" | "elifdef" | "elifndef" | "else" => {
                    let this = match word {
                        "elif" => condition(rest),
                        "elifdef" => defined(macro_name(rest)),
                        "elifndef" => defined(macro_name(rest)).not(),
                        _ => Taken::Yes,
                    };
                    if let Some(top) = stack.last_mut() {
                        top.before = top.before.or(top.now);
                        top.now = match (top.before, this) {
                            (Taken::Yes, _) => Taken::No,
                            (Taken::No, t) => t,
                            (Taken::Maybe, Taken::No) => Taken::No,
                            (Taken::Maybe, _) => Taken::Maybe,
                        };
                    }
                }
                "endif" => {
                    stack.pop();
                }
                "define" if active != Taken::No => {
                    let name = macro_name(rest);
                    let after = &rest[name.len()..];
                    if name.is_empty() {
                        continue;
                    }
                    let was = defined(name);
                    seen.insert(name.to_string(), if active == Taken::Yes { Taken::Yes } else { was.or(Taken::Maybe) });
                    // A function-like macro (`#define MAX(a, b) ...`) is not a value.
                    if active == Taken::Yes && !after.starts_with('(') {
                        out.push(FixedDefine {
                            name: name.to_string(),
                            value: after.trim().to_string(),
                            file: file.clone(),
                            line: *line,
                        });
                    }
                }
                "undef" if active != Taken::No => {
                    let name = macro_name(rest).to_string();
                    seen.insert(name, if active == Taken::Yes { Taken::No } else { Taken::Maybe });
                }
                _ => {}
            }
        }
    }
    out
}

/// The preprocessor directives of cleaned text, continuation lines joined: (line from 1, the directive
/// without its `#`).
fn directives(clean: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = clean.lines().enumerate();
    while let Some((i, l)) = lines.next() {
        let Some(d) = l.trim_start().strip_prefix('#') else { continue };
        let mut text = d.trim().to_string();
        while text.ends_with('\\') {
            text.pop();
            match lines.next() {
                Some((_, more)) => {
                    text.push(' ');
                    text.push_str(more.trim());
                }
                None => break,
            }
        }
        out.push((i + 1, text));
    }
    out
}

/// The identifier at the start of `text`.
fn macro_name(text: &str) -> &str {
    let t = text.trim_start();
    let end = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(t.len());
    &t[..end]
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str, given: &[&str]) -> Vec<(String, String, usize)> {
        let src = CudaSource { files: vec![(PathBuf::from("k.cu"), text.to_string())] };
        let given: BTreeSet<String> = given.iter().map(|s| s.to_string()).collect();
        fixed_defines(&src, &given).into_iter().map(|d| (d.name, d.value, d.line)).collect()
    }

    #[test]
    fn guarded_defines_yield_to_the_command_line() {
        let kt_matmul = "#define WIDTH 4096\n\n__global__ void matmul(float *C) {}\n";
        assert_eq!(fixed(kt_matmul, &["block_size_x"]), vec![("WIDTH".into(), "4096".into(), 1)]);
        let guarded =
            "#ifndef tile\n#define tile 4\n#endif\n#if !defined(block_size_x)\n#define block_size_x 256\n#endif\n";
        assert_eq!(fixed(guarded, &["tile", "block_size_x"]), vec![]);
        // Not passed, the guard is open and the default holds: fixed (nothing disagrees with it).
        assert_eq!(fixed(guarded, &[]), vec![("tile".into(), "4".into(), 2), ("block_size_x".into(), "256".into(), 5)]);
        // Kernel Tuner's convention: defaults for a compile outside the tuner.
        let kt = "#ifndef kernel_tuner\n  #define block_size_x 128\n#else\n  #define VEC 1\n#endif\n";
        assert_eq!(fixed(kt, &["kernel_tuner", "block_size_x"]), vec![("VEC".into(), "1".into(), 4)]);
        assert_eq!(fixed(kt, &[]), vec![("block_size_x".into(), "128".into(), 2)]);
    }

    #[test]
    fn undecidable_conditions_fix_nothing() {
        let text = "#if __CUDA_ARCH__ >= 800\n#define TILE 32\n#elif defined(__CUDACC__)\n#define TILE 16\n#else\n#define TILE 8\n#endif\n#ifdef USE_FAST\n#define N 3\n#endif\n";
        assert_eq!(fixed(text, &[]), vec![], "arch tests and names only the toolchain defines");
        // An include guard is open the first time through; a function-like macro is no value.
        let header =
            "#ifndef K_H\n#define K_H\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define N \\\n  (1 << 10)\n#endif\n";
        assert_eq!(fixed(header, &[]), vec![("K_H".into(), "".into(), 2), ("N".into(), "(1 << 10)".into(), 4)]);
        let zero = "#if 0\n#define A 1\n#elif 1\n#define B 2\n#else\n#define C 3\n#endif\n";
        assert_eq!(fixed(zero, &[]), vec![("B".into(), "2".into(), 4)]);
        let comments = "// #define A 1\n/* #define B 2 */\n#define C /* the size */ 3\n";
        assert_eq!(fixed(comments, &[]), vec![("C".into(), "3".into(), 3)]);
    }

    #[test]
    fn loop_unroll_factors_become_constants_and_zero_removes_the_pragma() {
        // Kernel Tuner's reduction.cu.
        let text = "__global__ void k(float *a, int n) {\n    #pragma unroll loop_unroll_factor_0\n    for (int i = 0; i < n; i++) a[i] = i;\n}\n";
        let four = unrolled(text, &[("loop_unroll_factor_0".into(), 4)]);
        assert_eq!(four, format!("constexpr int loop_unroll_factor_0 = 4;\n#line 1\n{text}"));
        let zero = unrolled(text, &[("loop_unroll_factor_0".into(), 0)]);
        assert_eq!(zero, text.replace("    #pragma unroll loop_unroll_factor_0\n", "\n"), "the line stays, empty");
        assert_eq!(zero.lines().count(), text.lines().count());
        // Another factor's pragma, and `#pragma unroll` alone, stay.
        let other = "# pragma unroll loop_unroll_factor_1\n#pragma unroll\n#pragma unroll 4\n";
        assert_eq!(unrolled(other, &[("loop_unroll_factor_0".into(), 0)]), other);
        assert_eq!(unrolled(other, &[("loop_unroll_factor_1".into(), 0)]), "\n#pragma unroll\n#pragma unroll 4\n");
    }

    #[test]
    fn a_fixed_value_contradicts_only_what_it_surely_differs_from() {
        let d = |v: &str| FixedDefine { name: "W".into(), value: v.into(), file: "k.cu".into(), line: 1 };
        for same in ["4096", "(4096)", "4096u", "64 * 64"] {
            assert!(!d(same).contradicts(&Value::Int(4096)), "{same}");
        }
        assert!(d("2048").contradicts(&Value::Int(4096)));
        assert!(!d("float").contradicts(&Value::Str("float".into())));
        assert!(d("double").contradicts(&Value::Str("float".into())));
        assert!(d("4").contradicts(&Value::Str("float".into())));
        // What names something is not judged: `#define block_size_x blockDim.x` follows any launch.
        assert!(!d("N * 2").contradicts(&Value::Int(8)));
        assert!(!d("blockDim.x").contradicts(&Value::Int(128)));
        assert!(!d("unsigned int").contradicts(&Value::Str("float".into())));
        assert_eq!(d("4096").describe(), "k.cu:1 fixes W at 4096 (a #define outside #ifndef W)");
    }
}
