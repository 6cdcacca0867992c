//! Users' own kernels: a kernel file (TOML, docs/KERNEL-FILE.md) names a `.cu`/`.ptx`/`.cubin`/`.fatbin`
//! source, its entry, arguments, problem sizes, grid rule, compile-time parameters and how to verify.
//! This module loads and checks such a file before any GPU work, expands it over block shapes and
//! parameter values into [`Config`]s (everything one launch needs), builds its modules (NVRTC, cached),
//! and verifies typed outputs. Plugging it into the sweep is described in docs/KERNEL-FILE.md,
//! "Integration".
//!
//! ```no_run
//! use warpscope::userkernel::{KernelFile, compile};
//! let file = KernelFile::load("examples/kernels/vector_add.toml".as_ref(), &[("n".into(), "1000000".into())])?;
//! let ex = file.expand(None, &[], warpscope::Input::name)?;
//! println!("{}", ex.summary());
//! let nvrtc = compile::Nvrtc::load().ok();
//! let target = compile::Target { cc: (9, 0), driver: "13.0".into() };
//! let built = compile::build(&file, &ex.modules, &target, nvrtc.as_ref().map(|n| n as _), &compile::Cache::user());
//! # Ok::<(), warpscope::Error>(())
//! ```

pub mod check;
pub mod compile;
pub mod data;
pub mod describe;
pub mod estimate;
mod expand;
pub mod expr;
mod file;
mod host_headers;
mod model;
pub mod prepro;
mod raw;
pub mod repredict;
pub mod session;
pub mod source;
pub mod sweep;

pub use expand::{ArgValue, Buffer, Config, Expansion, ModuleSpec, parse_define, parse_size};
pub use file::{
    ArgKind, ArgSpec, BLOCK_NAMES, DEFAULT_ATOL, DEFAULT_RTOL, Expected, GRID_NAMES, GridRule, Image, KernelFile,
    LExpr, Named, Offset, Param, ReferenceSpec, Role, SourceFile, VerifySpec, line_col,
};
