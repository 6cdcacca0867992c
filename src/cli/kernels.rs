//! `warpscope kernels`: the kernels warpscope can run, their entry points and problem options; with
//! `--kernel-file`, what a user's kernel file declares, checked (no GPU needed).

use std::path::PathBuf;

use clap::Args;

use warpscope::report::listings::KernelCatalogue;
use warpscope::spec::BlockLists;
use warpscope::userkernel::describe;
use warpscope::{Outcome, Result};

use super::{ListFormat, print_listing};

#[derive(Args, Debug)]
pub struct KernelsArgs {
    /// A kernel file (TOML, docs/KERNEL-FILE.md) to show and check, instead of the built-in list.
    #[arg(long, value_name = "FILE")]
    kernel_file: Option<PathBuf>,
    /// Set a problem size of the kernel file (repeatable): NAME=VALUE.
    #[arg(long = "size", value_name = "NAME=VALUE", requires = "kernel_file", conflicts_with = "format")]
    sizes: Vec<String>,
    /// Values of a compile-time parameter (repeatable): NAME=V1,V2 or ranges such as 1..8, 32..256:32.
    #[arg(long = "define", value_name = "NAME=VALUES", requires = "kernel_file", conflicts_with = "format")]
    defines: Vec<String>,
    /// Block shapes, e.g. 32x8,16x16 (default: the file's block_size_x/y/z lists).
    #[arg(long, requires = "kernel_file", conflicts_with = "format")]
    block: Option<String>,
    /// Block x extents (cartesian with --by/--bz): 32,64 or 32..256:32.
    #[arg(long, requires = "kernel_file", conflicts_with = "format")]
    bx: Option<String>,
    /// Block y extents.
    #[arg(long, requires = "kernel_file", conflicts_with = "format")]
    by: Option<String>,
    /// Block z extents.
    #[arg(long, requires = "kernel_file", conflicts_with = "format")]
    bz: Option<String>,
    /// Compute capability a .cu file is compiled for when NVRTC is found (75, 90 or 9.0).
    #[arg(long, default_value = "75", requires = "kernel_file", conflicts_with = "format")]
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
    let blocks = BlockLists { block: a.block.clone(), bx: a.bx.clone(), by: a.by.clone(), bz: a.bz.clone() };
    describe::Request {
        path,
        sizes: &a.sizes,
        defines: &a.defines,
        blocks: &blocks,
        arch: &a.arch,
        names: super::flag,
    }
    .run()?;
    Ok(Outcome::Ok)
}
