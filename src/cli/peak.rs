//! `warpscope peak`: memcpy, the copy kernels and the MAD curve, with where the kernel turns compute bound.

use std::path::PathBuf;

use clap::Args;

use warpscope::studies::peak;
use warpscope::{Outcome, Result};

use super::{Context, DeviceArg, OutputArgs, ranges};

/// Arguments of `peak`.
#[derive(Args, Debug)]
pub struct PeakArgs {
    #[arg(long, default_value_t = 8192, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Image width (elements)"))]
    nx: u32,
    #[arg(long, default_value_t = 8192, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Image height (elements)"))]
    ny: u32,
    #[arg(long, default_value_t = 256, value_parser = ranges::THREADS.parser(), help = ranges::THREADS.help("Threads per (1D) block"))]
    block: u32,
    #[arg(long, default_value_t = 2, value_parser = ranges::WARMUP.parser(), help = ranges::WARMUP.help("Untimed launches before timing"))]
    warmup: u32,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help("Timed launches per kernel"))]
    iters: u32,
    /// Draw the MAD curve (GP/s and GFLOP/s against N) to FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    gpu: DeviceArg,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(ctx: &Context, a: &PeakArgs) -> Result<Outcome> {
    let to = a.out.to();
    let study = super::study(ctx, &a.gpu, (a.warmup, a.iters), &a.out, &to, a.plot.as_deref())?;
    peak::Request { nx: a.nx, ny: a.ny, block: a.block, study }
        .run()
        .map_err(|e| e.or_smaller("choose a smaller image (--nx/--ny)"))
}
