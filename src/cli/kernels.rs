//! `warpscope kernels`: the kernels warpscope can run, their entry points and problem options; with
//! `--kernel-file`, what a user's kernel file declares, checked (no GPU needed).

use std::path::PathBuf;

use clap::Args;

use warpscope::Outcome;
use warpscope::report::listing::{ListingFormat, render};
use warpscope::report::listings::KernelCatalogue;
use warpscope::userkernel::{KernelFile, describe, parse_define};
use warpscope::{Error, Result, spec};

use super::{ListFormat, print_listing};

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
    /// Output format of the built-in list (a kernel file's description is text).
    #[arg(long, value_enum, default_value = "table", conflicts_with = "kernel_file")]
    format: ListFormat,
}

pub fn run(a: &KernelsArgs) -> Result<Outcome> {
    let Some(path) = &a.kernel_file else {
        print_listing(&KernelCatalogue::default(), a.format)?;
        return Ok(Outcome::Ok);
    };
    let sizes = a.sizes.iter().map(|s| super::name_value(s, "--size")).collect::<Result<Vec<_>>>()?;
    let defines = a.defines.iter().map(|d| parse_define(d)).collect::<Result<Vec<_>>>()?;
    let cc = parse_arch(&a.arch)?;
    let file = KernelFile::load(path, &sizes)?;
    let blocks = match (&a.block, &a.bx, &a.by, &a.bz) {
        (None, None, None, None) => None,
        _ => Some(spec::blocks_from(a.block.as_deref(), a.bx.as_deref(), a.by.as_deref(), a.bz.as_deref())?),
    };
    let parts = describe::report(&file, path, blocks.as_deref(), &defines, cc)?;
    warpscope::output::print(&render(&parts.as_slice(), ListingFormat::Table)?)?;
    Ok(Outcome::Ok)
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
