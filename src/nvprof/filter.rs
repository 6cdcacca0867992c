//! Which kernel launches get metrics and events: nvprof's `--kernels` (a kernel name or regular
//! expression, or the path `context:stream:kernel:invocation`, each field a regular expression, empty or
//! `*` for any) and Nsight Compute's `-k` (exact function name, or `regex:EXPR`), `-s` (launches to skip)
//! and `-c` (launches to profile), which count launches that pass the name filters.

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The filter as the user gave it (what travels to the injection library).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilterSpec {
    /// nvprof's `--kernels`.
    #[serde(default)]
    pub kernels: Option<String>,
    /// Nsight Compute's `-k/--kernel-name`.
    #[serde(default)]
    pub kernel_name: Option<String>,
    /// Nsight Compute's `-s/--launch-skip`.
    #[serde(default)]
    pub launch_skip: u64,
    /// Nsight Compute's `-c/--launch-count`.
    #[serde(default)]
    pub launch_count: Option<u64>,
}

/// One launch, as the filter sees it.
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    /// CUPTI's context id (1-based).
    pub context: u32,
    /// CUPTI's stream id.
    pub stream: u32,
    /// Demangled name without parameters (`sumMatrixOnGPU2D`, `matrixMulCUDA<int=32>`).
    pub base: &'a str,
    /// The symbol as compiled.
    pub mangled: &'a str,
    /// 1-based count of this kernel's launches in the process.
    pub invocation: u32,
}

/// A compiled filter and the launch counts that `-s`/`-c` need.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    context: Option<Regex>,
    stream: Option<Regex>,
    kernel: Option<Regex>,
    invocation: Option<Regex>,
    name: Option<NameMatch>,
    skip: u64,
    count: Option<u64>,
    passed: u64,
    selected: u64,
}

#[derive(Clone, Debug)]
enum NameMatch {
    Exact(String),
    Regex(Regex),
}

/// Whether a `--kernels` field holds an id or an expression of ids (no names: letters only in escapes
/// such as `\d`).
fn id_like(field: &str) -> bool {
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            c if c.is_ascii_alphabetic() || c == '_' => return false,
            _ => {}
        }
    }
    true
}

/// `field` as a regular expression matching whole values; `None` for any (empty or `*`).
fn whole(field: &str, what: &str) -> Result<Option<Regex>> {
    let f = field.trim();
    if f.is_empty() || f == "*" {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{f})$"))
        .map(Some)
        .map_err(|e| Error::usage(format!("--kernels: bad {what} '{f}': {}", first_line(&e.to_string()))))
}

fn first_line(s: &str) -> &str {
    s.lines().last().unwrap_or(s).trim()
}

fn search(pattern: &str, what: &str) -> Result<Option<Regex>> {
    let p = pattern.trim();
    if p.is_empty() || p == "*" {
        return Ok(None);
    }
    Regex::new(p)
        .map(Some)
        .map_err(|e| Error::usage(format!("{what}: bad regular expression '{p}': {}", first_line(&e.to_string()))))
}

impl Filter {
    /// Compiles `spec`; a malformed expression is a usage error.
    pub fn new(spec: &FilterSpec) -> Result<Self> {
        let mut f = Filter { skip: spec.launch_skip, count: spec.launch_count, ..Filter::default() };
        if let Some(k) = &spec.kernels {
            let fields: Vec<&str> = k.split(':').collect();
            // A path has ids (or expressions of them) where the context, stream and invocation go; a
            // kernel name can hold `::` too (`thrust::cuda::fill`).
            let n = fields.len();
            if n >= 4 && id_like(fields[0]) && id_like(fields[1]) && id_like(fields[n - 1]) {
                // context:stream:kernel:invocation; the kernel may itself hold `::`.
                f.context = whole(fields[0], "context")?;
                f.stream = whole(fields[1], "stream")?;
                f.kernel = search(&fields[2..n - 1].join(":"), "--kernels")?;
                f.invocation = whole(fields[n - 1], "invocation")?;
            } else {
                f.kernel = search(k, "--kernels")?;
            }
        }
        if let Some(n) = &spec.kernel_name {
            f.name = Some(match n.strip_prefix("regex:") {
                Some(re) => NameMatch::Regex(Regex::new(re).map_err(|e| {
                    Error::usage(format!("-k: bad regular expression '{re}': {}", first_line(&e.to_string())))
                })?),
                None => NameMatch::Exact(n.clone()),
            });
        }
        Ok(f)
    }

    /// Whether the launch is profiled; counts it for `-s`/`-c`. Call once per launch, in launch order.
    pub fn select(&mut self, l: &Launch) -> bool {
        let number = |re: &Option<Regex>, v: u32| re.as_ref().is_none_or(|r| r.is_match(&v.to_string()));
        let name_ok = self.kernel.as_ref().is_none_or(|r| r.is_match(l.base) || r.is_match(l.mangled))
            && match &self.name {
                None => true,
                Some(NameMatch::Exact(n)) => n == l.base || n == l.mangled || n == without_templates(l.base),
                Some(NameMatch::Regex(r)) => r.is_match(l.base) || r.is_match(l.mangled),
            };
        if !(name_ok
            && number(&self.context, l.context)
            && number(&self.stream, l.stream)
            && number(&self.invocation, l.invocation))
        {
            return false;
        }
        self.passed += 1;
        if self.passed <= self.skip || self.count.is_some_and(|c| self.selected >= c) {
            return false;
        }
        self.selected += 1;
        true
    }

    /// Whether no later launch can be selected (`-c` reached).
    pub fn exhausted(&self) -> bool {
        self.count.is_some_and(|c| self.selected >= c)
    }
}

/// `ns::kernel<int=32>` -> `ns::kernel` (Nsight Compute's "function" name).
fn without_templates(base: &str) -> &str {
    base.split('<').next().unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch<'a>(base: &'a str, context: u32, stream: u32, invocation: u32) -> Launch<'a> {
        Launch { context, stream, base, mangled: "_Z1kv", invocation }
    }

    fn picks(spec: FilterSpec, launches: &[Launch]) -> Vec<bool> {
        let mut f = Filter::new(&spec).unwrap();
        launches.iter().map(|l| f.select(l)).collect()
    }

    fn kernels(s: &str) -> FilterSpec {
        FilterSpec { kernels: Some(s.into()), ..FilterSpec::default() }
    }

    #[test]
    fn nvprof_path_syntax() {
        let ls = [
            launch("sumMatrixOnGPU2D", 1, 7, 1),
            launch("sumMatrixOnGPU2D", 1, 7, 2),
            launch("warmup", 1, 13, 1),
            launch("sumMatrixOnGPU2D", 2, 7, 3),
        ];
        // The issue's example: the first invocation of any kernel whose name contains sumMatrix.
        assert_eq!(picks(kernels("::sumMatrix:1"), &ls), [true, false, false, false]);
        assert_eq!(picks(kernels("1:foo:bar:2"), &ls), [false; 4]);
        assert_eq!(picks(kernels("1:7::2"), &ls), [false, true, false, false]);
        assert_eq!(picks(kernels("*:13:*:*"), &ls), [false, false, true, false]);
        assert_eq!(picks(kernels("2:::"), &ls), [false, false, false, true]);
        assert_eq!(picks(kernels(":::1|3"), &ls), [true, false, true, true]);
        assert_eq!(picks(kernels("warm"), &ls), [false, false, true, false]);
        assert_eq!(picks(kernels("^sum.*2D$"), &ls), [true, true, false, true]);
    }

    #[test]
    fn namespaces_survive_the_colons() {
        let ls = [launch("thrust::cuda::fill", 1, 7, 1), launch("other", 1, 7, 1)];
        assert_eq!(picks(kernels("thrust::cuda::fill"), &ls), [true, false]);
        assert_eq!(picks(kernels("1:7:thrust::cuda::fill:1"), &ls), [true, false]);
        assert_eq!(picks(kernels(r"::thrust::cuda::fill:\d"), &ls), [true, false]);
        assert_eq!(picks(kernels("a::b::c::d"), &[launch("a::b::c::d", 1, 7, 1)]), [true]);
    }

    #[test]
    fn nsight_compute_flags() {
        let ls: Vec<Launch> = (1..=5).map(|i| launch("k<int=32>", 1, 7, i)).collect();
        let spec = |n: Option<&str>, skip, count| FilterSpec {
            kernel_name: n.map(String::from),
            launch_skip: skip,
            launch_count: count,
            ..FilterSpec::default()
        };
        assert_eq!(picks(spec(Some("k"), 1, Some(2)), &ls), [false, true, true, false, false]);
        assert_eq!(picks(spec(Some("k<int=32>"), 0, None), &ls), [true; 5]);
        assert_eq!(picks(spec(Some("kk"), 0, None), &ls), [false; 5]);
        assert_eq!(picks(spec(Some("regex:^k<"), 3, None), &ls), [false, false, false, true, true]);
        let mut f = Filter::new(&spec(None, 0, Some(1))).unwrap();
        assert!(f.select(&ls[0]) && f.exhausted() && !f.select(&ls[1]));
    }

    #[test]
    fn bad_expressions_are_usage_errors() {
        for bad in ["::sum(:1", "1:7:k:[", "(:::"] {
            let e = Filter::new(&kernels(bad)).unwrap_err().to_string();
            assert!(e.contains("--kernels") && !e.contains('\n'), "{bad}: {e}");
        }
        let e = Filter::new(&FilterSpec { kernel_name: Some("regex:(".into()), ..FilterSpec::default() }).unwrap_err();
        assert!(e.to_string().starts_with("-k: bad regular expression"));
    }
}
