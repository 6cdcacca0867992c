//! `warpscope kernels`: the kernels warpscope can run, their entry points and problem options; with
//! `--kernel-file`, what a user's kernel file declares, checked (no GPU needed).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Outcome;
use warpscope::kernels;
use warpscope::model::resources;
use warpscope::userkernel::{KernelFile, compile, describe, parse_define};
use warpscope::{Error, Result, spec};

#[derive(Args, Debug)]
pub struct KernelsArgs {
    /// A kernel file (TOML, docs/KERNEL-FILE.md) to show and check, instead of the built-in list.
    #[arg(long, value_name = "FILE")]
    kernel_file: Option<PathBuf>,
    /// Set a problem size of the kernel file (repeatable): NAME=VALUE.
    #[arg(long = "size", value_name = "NAME=VALUE", requires = "kernel_file")]
    sizes: Vec<String>,
    /// Values of a compile-time parameter (repeatable): NAME=V1,V2 or ranges such as 1..8, 32..256:32.
    #[arg(long = "define", value_name = "NAME=VALUES", requires = "kernel_file")]
    defines: Vec<String>,
    /// Block shapes, e.g. 32x8,16x16 (default: the file's block_size_x/y/z lists).
    #[arg(long, requires = "kernel_file")]
    block: Option<String>,
    /// Block x extents (cartesian with --by/--bz): 32,64 or 32..256:32.
    #[arg(long, requires = "kernel_file")]
    bx: Option<String>,
    /// Block y extents.
    #[arg(long, requires = "kernel_file")]
    by: Option<String>,
    /// Block z extents.
    #[arg(long, requires = "kernel_file")]
    bz: Option<String>,
    /// Compute capability a .cu file is compiled for when NVRTC is found (75, 90 or 9.0).
    #[arg(long, default_value = "75", requires = "kernel_file")]
    arch: String,
}

pub fn run(a: &KernelsArgs) -> Result<Outcome> {
    match &a.kernel_file {
        Some(path) => kernel_file(a, path),
        None => catalogue(),
    }
}

fn catalogue() -> Result<Outcome> {
    let mut t = Builder::default();
    t.push_record(["kernel", "entry", "registers (sm_90)", "problem (defaults)", "what it does"]);
    for k in kernels::all() {
        let regs = resources::lookup(k.entry, "sm_90").map(|r| r.registers.to_string()).unwrap_or_else(|| "-".into());
        t.push_record([k.name, k.entry, &regs, &k.defaults(), k.about]);
    }
    outln!("{}", t.build().with(Style::psql()))?;
    let options: Vec<String> = kernels::Param::ALL.iter().map(|p| format!("--{}", p.name())).collect();
    outln!("problem options: {} (each kernel takes those it lists)", options.join(", "))?;
    outln!("your own kernel: warpscope kernels --kernel-file FILE.toml (docs/KERNEL-FILE.md)")?;
    Ok(Outcome::Ok)
}

fn pair(s: &str, flag: &str) -> Result<(String, String)> {
    s.split_once('=')
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| Error::usage(format!("{flag} '{s}': expected NAME=VALUE")))
}

/// Compute capability from `75`, `9.0` or `sm_90`.
fn parse_arch(s: &str) -> Result<(u32, u32)> {
    let t = s.trim().trim_start_matches("sm_").trim_start_matches("compute_");
    let parsed = match t.split_once('.') {
        Some((a, b)) => a.parse().ok().zip(b.parse().ok()),
        None if t.len() >= 2 => t[..t.len() - 1].parse().ok().zip(t[t.len() - 1..].parse().ok()),
        None => None,
    };
    parsed.ok_or_else(|| Error::usage(format!("--arch '{s}': expected a compute capability such as 75, 90 or 9.0")))
}

fn kernel_file(a: &KernelsArgs, path: &std::path::Path) -> Result<Outcome> {
    let sizes = a.sizes.iter().map(|s| pair(s, "--size")).collect::<Result<Vec<_>>>()?;
    let defines = a.defines.iter().map(|d| parse_define(d)).collect::<Result<Vec<_>>>()?;
    let cc = parse_arch(&a.arch)?;
    let file = KernelFile::load(path, &sizes)?;
    let blocks = match (&a.block, &a.bx, &a.by, &a.bz) {
        (None, None, None, None) => None,
        _ => Some(spec::blocks_from(a.block.as_deref(), a.bx.as_deref(), a.by.as_deref(), a.bz.as_deref())?),
    };
    if blocks.is_none() && file.default_blocks().is_none() {
        // Nothing to expand: describe the declarations, evaluate nothing that needs a block.
        print_declarations(&file, path, None)?;
        outln!("\nno block shapes in the file: give --block or --bx/--by/--bz to expand and check it")?;
        return Ok(Outcome::Ok);
    }
    let ex = file.expand(blocks.as_deref(), &defines)?;

    let first = ex.configs.iter().find(|c| c.invalid.is_none());
    print_declarations(&file, path, first)?;
    outln!("\nexpands to {}", ex.summary())?;
    for c in ex.configs.iter().filter(|c| c.invalid.is_some()).take(5) {
        outln!("  invalid: block {} {}: {}", c.block, c.params_label(), c.invalid.as_deref().unwrap_or(""))?;
    }

    let kind = file.sources[0].image.kind();
    match kind {
        "ptx" => {
            outln!("checked: the entry and its {} arguments against the PTX's .entry parameters", file.args.len())?
        }
        "cubin" => {
            outln!("checked: the entry against the cubin's kernels; the driver checks the parameters when it loads it")?
        }
        "fatbin" => outln!("checked: a fatbinary; the driver checks the entry and parameters when it loads it")?,
        _ => check_with_nvrtc(&file, &ex, cc)?,
    }
    Ok(Outcome::Ok)
}

/// The file's declarations and its arguments (evaluated at `first` when given).
fn print_declarations(
    file: &KernelFile,
    path: &std::path::Path,
    first: Option<&warpscope::userkernel::Config>,
) -> Result<()> {
    let mut t = Builder::default();
    t.push_record(["kernel file", &path.display().to_string()]);
    for (label, text) in describe::overview(file) {
        t.push_record([label, &text]);
    }
    outln!("{}", t.build().with(Style::psql()))?;
    let mut t = Builder::default();
    t.push_record(["#", "argument", "type", "kind", "length / value", "contents"]);
    for row in describe::arg_rows(file, first) {
        t.push_record(row);
    }
    outln!("\n{}", t.build().with(Style::psql()))?;
    if let Some(c) = first {
        let params = c.params_label();
        outln!("(lengths and values at block {}{}{params})", c.block, if params.is_empty() { "" } else { ", " })?;
    }
    Ok(())
}

/// Compiles a `.cu` kernel file's modules when NVRTC is here and checks them against the arguments;
/// without NVRTC says what was checked instead.
fn check_with_nvrtc(file: &KernelFile, ex: &warpscope::userkernel::Expansion, cc: (u32, u32)) -> Result<()> {
    let nvrtc = match compile::Nvrtc::load() {
        Ok(n) => n,
        Err(why) => {
            outln!(
                "checked: the entry and its arguments against the source text only; NVRTC is needed to check the compiled entry ({why})"
            )?;
            outln!(
                "  to check them: install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, or set WARPSCOPE_NVRTC to libnvrtc.so"
            )?;
            return Ok(());
        }
    };
    let driver = warpscope::gpu::probe::driver().map(|v| v.to_string()).unwrap_or_else(|_| "none".into());
    let target = compile::Target { cc, driver };
    let cache = compile::Cache::user();
    let start = Instant::now();
    let built = compile::build(file, &ex.modules, &target, Some(&nvrtc), &cache);
    let secs = start.elapsed().as_secs_f64();
    let failed = describe::check_built(file, ex, &built)?;
    let cached = built.iter().filter(|b| b.as_ref().is_ok_and(|b| b.cached)).count();
    outln!(
        "checked: {} ({}) built {} module{} for compute_{}{} ({cached} from the cache) in {secs:.2} s; the entry and its arguments against the PTX",
        compile::Compiler::version(&nvrtc),
        nvrtc.path().display(),
        built.len(),
        if built.len() == 1 { "" } else { "s" },
        cc.0,
        cc.1
    )?;
    if failed > 0 {
        let first = built.iter().find_map(|b| b.as_ref().err()).map(|e| e.summary.clone()).unwrap_or_default();
        outln!("  {failed} module(s) failed to compile (their configurations become invalid rows); first: {first}")?;
    }
    Ok(())
}
