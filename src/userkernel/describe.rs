//! What `warpscope kernels --kernel-file` shows: a kernel file's declarations in words (grid rule,
//! parameters, verification), its arguments as table rows evaluated at one configuration, and the
//! checks of built modules against their PTX.

use std::path::Path;
use std::time::Instant;

use super::compile::{self, Built, Code, CompileError};
use super::expand::{ArgValue, Config, Expansion, parse_define, parse_size};
use super::expr::Value;
use super::file::{ArgKind, Expected, GridRule, KernelFile, Role};
use crate::error::{Error, Input, Names, Result};
use crate::report::listing::{Cells, ListingFormat, Part, render};
use crate::spec::{BlockLists, Dim3};

/// `warpscope kernels --kernel-file` once its arguments are checked: what the file declares, expanded
/// and checked, printed.
pub struct Request<'a> {
    /// The kernel file.
    pub path: &'a Path,
    /// Its problem sizes, `NAME=VALUE`.
    pub sizes: &'a [String],
    /// Values of its compile-time parameters, `NAME=VALUES`.
    pub defines: &'a [String],
    /// Block shapes (none given: the file's own lists).
    pub blocks: &'a BlockLists,
    /// The compute capability a .cu file is compiled for (`75`, `9.0`, `sm_90`).
    pub arch: &'a str,
    /// The front end's names of the inputs, for the messages that name them.
    pub names: Names,
}

impl Request<'_> {
    /// Prints the description.
    pub fn run(&self) -> Result<()> {
        let sizes = self.sizes.iter().map(|s| parse_size(s)).collect::<Result<Vec<_>>>()?;
        let defines = self.defines.iter().map(|d| parse_define(d)).collect::<Result<Vec<_>>>()?;
        let cc = parse_cc(self.arch)?;
        let file = KernelFile::load(self.path, &sizes)?;
        let blocks = self.blocks.given()?;
        let parts = report(&file, self.path, blocks.as_deref(), &defines, cc, self.names)?;
        crate::output::print(&render(&parts.as_slice(), ListingFormat::Table)?)
    }
}

/// Compute capability from `75`, `9.0` or `sm_90`.
fn parse_cc(s: &str) -> Result<(u32, u32)> {
    let t = s.trim().trim_start_matches("sm_").trim_start_matches("compute_");
    let parsed = match t.split_once('.') {
        Some((a, b)) => a.parse().ok().zip(b.parse().ok()),
        None if t.len() >= 2 => t[..t.len() - 1].parse().ok().zip(t[t.len() - 1..].parse().ok()),
        None => None,
    };
    parsed.ok_or_else(|| {
        Error::input(Input::Arch, Some(format!("'{s}'")), "expected a compute capability such as 75, 90 or 9.0")
    })
}

/// Everything `kernels --kernel-file` prints about `file` (read from `path`): its declarations, its
/// expansion over `blocks` (else the file's own block lists) and `defines`, and what could be checked
/// without a GPU — the PTX's entry, or the modules compiled by NVRTC for compute capability `cc` when
/// NVRTC is here.
pub fn report(
    file: &KernelFile,
    path: &Path,
    blocks: Option<&[Dim3]>,
    defines: &[(String, Vec<Value>)],
    cc: (u32, u32),
    names: Names,
) -> Result<Vec<Part>> {
    let mut out = Vec::new();
    let line = |out: &mut Vec<Part>, text: String| out.push(Part::Line(text));
    if blocks.is_none() && file.default_blocks().is_none() {
        // Nothing to expand: describe the declarations, evaluate nothing that needs a block.
        declarations(&mut out, file, path, None);
        line(&mut out, format!("\nno block shapes in the file: give {} to expand and check it", names(Input::Blocks)));
        return Ok(out);
    }
    let ex = file.expand(blocks, defines, names)?;
    if ex.configs.is_empty() {
        return Err(Error::usage(format!(
            "nothing to check: {} (the restrictions of {} remove every one)",
            ex.summary(),
            path.display()
        )));
    }
    let first = ex.configs.iter().find(|c| c.invalid.is_none());
    declarations(&mut out, file, path, first);
    line(&mut out, format!("\nexpands to {}", ex.summary()));
    for c in ex.configs.iter().filter(|c| c.invalid.is_some()).take(5) {
        line(
            &mut out,
            format!("  invalid: block {} {}: {}", c.block, c.params_label(), c.invalid.as_deref().unwrap_or("")),
        );
    }
    match file.sources[0].image.kind() {
        "ptx" => line(
            &mut out,
            format!("checked: the entry and its {} arguments against the PTX's .entry parameters", file.args.len()),
        ),
        "cubin" => line(
            &mut out,
            "checked: the entry against the cubin's kernels; the driver checks the parameters when it loads it".into(),
        ),
        "fatbin" => {
            line(&mut out, "checked: a fatbinary; the driver checks the entry and parameters when it loads it".into())
        }
        _ => with_nvrtc(&mut out, file, &ex, cc)?,
    }
    Ok(out)
}

/// The file's declarations and its arguments (evaluated at `first` when given).
fn declarations(out: &mut Vec<Part>, file: &KernelFile, path: &Path, first: Option<&Config>) {
    let mut t = Cells::new(&["kernel file", &path.display().to_string()]);
    for (label, text) in overview(file) {
        t.push(vec![label.to_string(), text]);
    }
    out.push(Part::Table(t));
    out.push(Part::Line(String::new()));
    let mut t = Cells::new(&["#", "argument", "type", "kind", "length / value", "contents"]);
    for row in arg_rows(file, first) {
        t.push(row.to_vec());
    }
    out.push(Part::Table(t));
    if let Some(c) = first {
        let params = c.params_label();
        let sep = if params.is_empty() { "" } else { ", " };
        out.push(Part::Line(format!("(lengths and values at block {}{sep}{params})", c.block)));
    }
}

/// Compiles a `.cu` kernel file's modules when NVRTC is here and checks them against the arguments;
/// without NVRTC says what was checked instead.
fn with_nvrtc(out: &mut Vec<Part>, file: &KernelFile, ex: &Expansion, cc: (u32, u32)) -> Result<()> {
    let nvrtc = match compile::Nvrtc::load() {
        Ok(n) => n,
        Err(why) => {
            out.push(Part::Line(if file.source_signature().is_some() {
                format!("checked: the entry and its arguments against the source text only; NVRTC is needed to check the compiled entry ({why})")
            } else {
                format!("checked: only that the source mentions the entry (the text does not spell its parameters out once: a template, overloads or a macro); NVRTC is needed to check the arguments against the compiled entry ({why})")
            }));
            out.push(Part::Line(
                "  to check them: install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, or set WARPSCOPE_NVRTC to libnvrtc.so"
                    .into(),
            ));
            return Ok(());
        }
    };
    let driver = crate::gpu::probe::driver().map(|v| v.to_string()).unwrap_or_else(|_| "none".into());
    let target = compile::Target { cc, driver };
    let cache = compile::Cache::user();
    let start = Instant::now();
    let built = compile::build(file, &ex.modules, &target, Some(&nvrtc), &cache);
    let secs = start.elapsed().as_secs_f64();
    let failed = check_built(file, ex, &built)?;
    let cached = built.iter().filter(|b| b.as_ref().is_ok_and(|b| b.cached)).count();
    out.push(Part::Line(format!(
        "checked: {} ({}) built {} module{} for compute_{}{} ({cached} from the cache) in {secs:.2} s; the entry and its arguments against the PTX",
        compile::Compiler::version(&nvrtc),
        nvrtc.path().display(),
        built.len(),
        if built.len() == 1 { "" } else { "s" },
        cc.0,
        cc.1
    )));
    if failed > 0 {
        let first = built.iter().find_map(|b| b.as_ref().err()).map(|e| e.summary.clone()).unwrap_or_default();
        out.push(Part::Line(format!(
            "  {failed} module(s) failed to compile (their configurations become invalid rows); first: {first}"
        )));
    }
    Ok(())
}

/// `(label, text)` lines describing the file.
pub fn overview(k: &KernelFile) -> Vec<(&'static str, String)> {
    let src = &k.sources[0];
    let how = match src.image.kind() {
        "cu" => "CUDA C++, compiled at run time with NVRTC",
        "ptx" => "PTX, JIT-compiled by the driver",
        _ => "a binary for the driver",
    };
    let mut out = vec![
        ("kernel", format!("{} (entry {} in {}: {how})", k.name, k.entry, src.path.display())),
        ("problem", if k.sizes.is_empty() { "no sizes".into() } else { k.problem_label() }),
    ];
    let join = |es: &[super::file::LExpr]| es.iter().map(|e| e.expr.text().to_string()).collect::<Vec<_>>();
    let grid = match &k.grid {
        GridRule::Explicit(axes) => {
            let t = join(axes);
            ["x", "y", "z"]
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{a} = {}", t.get(i).map_or("1", String::as_str)))
                .collect::<Vec<_>>()
                .join(", ")
        }
        GridRule::Divided { sizes, divisors } => ["x", "y", "z"]
            .iter()
            .enumerate()
            .map(|(i, a)| match sizes.get(i) {
                Some(s) => {
                    // A divisor that is an expression keeps its own parentheses (`n / (bx / tpr)`).
                    let ds: Vec<String> = join(&divisors[i])
                        .into_iter()
                        .map(|d| if d.chars().all(|c| c.is_alphanumeric() || c == '_') { d } else { format!("({d})") })
                        .collect();
                    match ds.as_slice() {
                        [] => format!("{a} = {}", s.expr.text()),
                        [d] => format!("{a} = ceil({} / {d})", s.expr.text()),
                        ds => format!("{a} = ceil({} / ({}))", s.expr.text(), ds.join(" * ")),
                    }
                }
                None => format!("{a} = 1"),
            })
            .collect::<Vec<_>>()
            .join(", "),
    };
    out.push(("grid", grid));
    if let Some(s) = &k.shared_memory {
        out.push(("shared memory", format!("{} bytes per block (dynamic)", s.expr.text())));
    }
    let mut params: Vec<String> = k
        .params
        .iter()
        .map(|p| format!("{} = {}", p.name, p.values.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")))
        .collect();
    if let Some(blocks) = k.default_blocks() {
        params.push(format!("blocks {}", blocks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")));
    }
    out.push(("parameters", if params.is_empty() { "none".into() } else { params.join("; ") }));
    if !k.defines.is_empty() {
        let d: Vec<String> = k.defines.iter().map(|(n, e)| format!("{n} = {}", e.expr.text())).collect();
        out.push(("defines", d.join("; ")));
    }
    // What the source fixes that warpscope would otherwise pass: the configurations it makes invalid
    // are listed below, this says why before any is.
    let fixed: Vec<String> = k.fixed.iter().flatten().filter(|f| k.passes(&f.name)).map(|f| f.describe()).collect();
    if !fixed.is_empty() {
        out.push(("fixed by the source", fixed.join("; ")));
    }
    if !k.restrictions.is_empty() {
        out.push((
            "restrictions",
            k.restrictions.iter().map(|r| r.expr.text().to_string()).collect::<Vec<_>>().join("; "),
        ));
    }
    let outputs_float: Vec<bool> = k.outputs().map(|i| k.args[i].ty.is_float()).collect();
    let tol = if outputs_float.is_empty() {
        "no output buffer is compared (none declared, or each has verify = false)".to_string()
    } else if !k.verify.tolerance_given && !outputs_float.contains(&true) {
        "integer outputs compared exactly".to_string()
    } else {
        let t = format!("|got - want| <= {} + {} |want|", k.verify.atol, k.verify.rtol);
        if !k.verify.tolerance_given && outputs_float.contains(&false) {
            format!("{t} (integer outputs exactly)")
        } else {
            t
        }
    };
    let verify = match &k.verify.expected {
        Expected::Reference(r) => format!(
            "against reference kernel {} at block {} ({})",
            r.entry,
            r.block,
            k.sources[r.source].path.display()
        ),
        Expected::Npy(files) => format!(
            "against {}",
            files.iter().map(|(i, p)| format!("{} = {}", k.args[*i].name, p.display())).collect::<Vec<_>>().join(", ")
        ),
        Expected::SameAsFirst => "every configuration against the first one (no reference given)".into(),
        Expected::Sums(pairs) => format!(
            "each output's sum against an input's ({}): |sum got - sum want| <= {} + {} sum |input|",
            pairs
                .iter()
                .map(|(o, i)| format!("sum {} = sum {}", k.args[*o].name, k.args[*i].name))
                .collect::<Vec<_>>()
                .join(", "),
            k.verify.atol,
            k.verify.rtol
        ),
    };
    let sums = matches!(k.verify.expected, Expected::Sums(_));
    let row = if outputs_float.is_empty() {
        format!("none: {tol}")
    } else if sums {
        verify
    } else {
        format!("{verify}; {tol}")
    };
    out.push(("verification", row));
    out
}

/// An expression with its value at a configuration where that says more (`2 * n = 4000000`).
fn shown(expr: &str, evaluated: Option<String>) -> String {
    match evaluated {
        Some(v) if v != expr => format!("{expr} = {v}"),
        _ => expr.to_string(),
    }
}

/// One row per argument: position, name, type, kind, length or value (evaluated at `at` when given),
/// contents.
pub fn arg_rows(k: &KernelFile, at: Option<&Config>) -> Vec<[String; 6]> {
    k.args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let evaluated = at.and_then(|c| match c.args.get(i)? {
                ArgValue::Buffer(b) => Some((c.buffers[*b].len / a.lanes as u64).to_string()),
                ArgValue::Scalar { value, .. } => Some(value.to_string()),
            });
            let (kind, expr, contents) = match &a.kind {
                ArgKind::Buffer { len, role, init } => {
                    let verified = if a.check { "verified" } else { "not verified (verify = false)" };
                    let contents = match (role, init) {
                        (Role::Output, _) => format!("poisoned, {verified}"),
                        (Role::InOut, Some(i)) => format!("{i}, {verified}"),
                        (_, Some(i)) => i.to_string(),
                        (_, None) => "-".into(),
                    };
                    let kind = match role {
                        Role::Input => "input",
                        Role::Output => "output",
                        Role::InOut => "in/out",
                    };
                    (kind, len.expr.text(), contents)
                }
                ArgKind::Scalar { value } => ("scalar", value.expr.text(), "-".to_string()),
            };
            [i.to_string(), a.name.clone(), a.type_name(), kind.to_string(), shown(expr, evaluated), contents]
        })
        .chain(k.constants.iter().enumerate().map(|(j, a)| {
            // (a constant is always a buffer: the file's reader refuses anything else)
            let (expr, init) = match &a.kind {
                ArgKind::Buffer { len, init, .. } => (len.expr.text(), init.as_ref()),
                ArgKind::Scalar { value } => (value.expr.text(), None),
            };
            let evaluated = at.and_then(|c| c.constants.get(j)).map(|b| (b.len / a.lanes as u64).to_string());
            let contents = init.map_or("-".to_string(), ToString::to_string);
            ["-".into(), a.name.clone(), a.type_name(), "__constant__".into(), shown(expr, evaluated), contents]
        }))
        .collect()
}

/// Checks every built module's PTX against the arguments (the entry of the configurations using it);
/// returns how many modules failed to build. When none built, the first failure is the error, with the
/// compiler's log.
pub fn check_built(
    k: &KernelFile,
    ex: &Expansion,
    built: &[std::result::Result<Built, CompileError>],
) -> Result<usize> {
    // Modules a run did not need were not compiled: they neither fail nor pass. Where none of the
    // kernel's own modules built, nothing can run, whether or not the reference's did.
    let tried: Vec<_> = built.iter().filter(|b| !super::compile::not_built(b)).collect();
    let own: Vec<_> = (0..built.len())
        .filter(|&m| ex.configs.iter().any(|c| c.module == m && c.invalid.is_none()))
        .map(|m| &built[m])
        .filter(|b| !super::compile::not_built(b))
        .collect();
    if let Some(Err(e)) = own.first()
        && own.iter().all(|b| b.is_err())
    {
        let log = if e.log.is_empty() { String::new() } else { format!("\n{}", e.log.trim_end()) };
        return Err(Error::usage(format!("{}{log}", e.summary)));
    }
    for (m, b) in built.iter().enumerate() {
        let Ok(Built { code: Code::Ptx(ptx), .. }) = b else { continue };
        let users = ex.configs.iter().chain(ex.reference.as_ref()).filter(|c| c.module == m);
        let mut entries: Vec<&str> = users.map(|c| c.entry.as_str()).collect();
        entries.dedup();
        for entry in entries {
            let at = match &k.verify.expected {
                Expected::Reference(r) if r.entry == entry => r.entry_at,
                _ => k.entry_at,
            };
            k.check_ptx(ptx, entry, at)?;
        }
    }
    Ok(tried.iter().filter(|b| b.is_err()).count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::userkernel::compile::{Built, Code, CompileError};

    #[test]
    fn a_file_whose_kernel_modules_all_fail_is_an_error_though_its_reference_builds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), "__global__ void k(float *a) { a[0] = tile; }\n").unwrap();
        std::fs::write(dir.path().join("r.cu"), "extern \"C\" __global__ void r(float *a) { a[0] = 1; }\n").unwrap();
        let toml = "source = \"k.cu\"\nentry = \"k\"\ngrid = [\"1\"]\n[tune_params]\nblock_size_x = [32]\ntile = [1, 2]\n\
                    [[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"1\"\noutput = true\n\
                    [verify]\nreference = { source = \"r.cu\", entry = \"r\", block = \"32\" }\n";
        std::fs::write(dir.path().join("k.toml"), toml).unwrap();
        let k = KernelFile::load(&dir.path().join("k.toml"), &[]).unwrap();
        let ex = k.expand(None, &[], Input::name).unwrap();
        let reference = ex.reference.as_ref().unwrap().module;
        let ptx = ".version 9.0\n.visible .entry r(\n.param .u64 r_param_0\n)\n{\nret;\n}\n";
        let built = |kernel_builds: bool| -> Vec<std::result::Result<Built, CompileError>> {
            (0..ex.modules.len())
                .map(|m| {
                    if m == reference || kernel_builds {
                        let text = if m == reference { ptx.to_string() } else { ptx.replace(" r", " _Z1kPf") };
                        Ok(Built { code: Code::Ptx(text), cached: false, compile_secs: 0.0 })
                    } else {
                        Err(CompileError { summary: "k.cu(1): error: boom".into(), log: String::new() })
                    }
                })
                .collect()
        };
        assert_eq!(ex.modules.len(), 3, "two of the kernel's, one of the reference's");
        let e = check_built(&k, &ex, &built(false)).unwrap_err();
        assert!(e.to_string().contains("boom"), "{e}");
        assert_eq!(check_built(&k, &ex, &built(true)).unwrap(), 0);
    }
}
