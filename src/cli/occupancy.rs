//! `warpscope occupancy`: the exact theoretical occupancy calculator, for any arch of the database.

use std::path::PathBuf;

use clap::Args;

use warpscope::gpu::BackendKind;
use warpscope::model::occupancy::Request;
use warpscope::report::listings;
use warpscope::{Outcome, Result};

use super::{Context, ListFormat, ranges, usage};

/// Arguments of `occupancy`.
#[derive(Args, Debug)]
pub struct OccupancyArgs {
    /// Compute capability: sm_80, 9.0, ...
    #[arg(long, required_unless_present = "against_driver")]
    arch: Option<String>,
    /// Threads per block: one value, a list or a range (`32..1024:32`).
    #[arg(long, value_name = "LIST", required_unless_present = "against_driver")]
    block_size: Option<String>,
    #[arg(long, default_value_t = 32, value_parser = ranges::REGS.parser(), help = ranges::REGS.help("Registers per thread"))]
    regs: u32,
    #[arg(long, default_value_t = 0, value_parser = ranges::SMEM.parser(), help = ranges::SMEM.help(
        "Static shared memory per block, bytes"
    ))]
    smem: u32,
    #[arg(long, default_value_t = 0, value_parser = ranges::SMEM.parser(), help = ranges::SMEM.help(
        "Dynamic shared memory per block, bytes"
    ))]
    dynamic_smem: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Also draw the calculator's three views to FILE (.svg or .png): occupancy as the block size, the
    /// registers per thread and the shared memory vary, the current point (the first --block-size)
    /// marked and the limiting resource shaded.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Check the calculator against the driver's (cuOccupancyMaxActiveBlocksPerMultiprocessor) on this
    /// machine's GPU: probe kernels of 24 to 255 registers and 0 to 40 KiB of static shared memory, many
    /// block and dynamic shared-memory sizes; exits 1 on any disagreement.
    #[arg(long, conflicts_with_all = ["arch", "block_size", "plot"])]
    against_driver: bool,
    #[arg(long, value_parser = ranges::DEVICE.parser(),
        help = ranges::DEVICE.help("CUDA device ordinal, with --against-driver (default 0)"))]
    device: Option<u32>,
}

pub fn run(ctx: &Context, a: &OccupancyArgs) -> Result<Outcome> {
    if a.against_driver {
        if ctx.backend != BackendKind::Cuda {
            return Err(usage("--against-driver needs the real GPU backend"));
        }
        return listings::check_driver(a.device.unwrap_or(0), a.format.into());
    }
    if a.device.is_some() {
        return Err(usage("--device applies to --against-driver: the calculator itself needs no GPU"));
    }
    let (Some(arch), Some(sizes)) = (&a.arch, &a.block_size) else {
        return Err(usage("occupancy needs --arch and --block-size (or --against-driver)"));
    };
    let request = Request { block_size: 0, regs_per_thread: a.regs, static_smem: a.smem, dynamic_smem: a.dynamic_smem };
    listings::calculate(arch, sizes, request, a.format.into(), a.plot.as_deref())
}
