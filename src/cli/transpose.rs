//! `warpscope transpose --bench`: the transpose variants over sizes, against the fastest copy.

use clap::Args;

use warpscope::studies::transpose_bench;
use warpscope::{Outcome, Result};

use super::{Context, DeviceArg, OutputArgs, ranges, usage};

/// Arguments of `transpose`.
#[derive(Args, Debug)]
pub struct TransposeArgs {
    /// Run the benchmark (every variant at every size, against the fastest copy).
    #[arg(long)]
    bench: bool,
    /// Sizes, comma-separated: square sides, or heights when --width is given.
    #[arg(long, default_value = "1024,2048,4096,8192,16384")]
    sizes: String,
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help(
        "A fixed width: the sizes become heights (the seed's naive transpose slowed as the image grew taller)"
    ))]
    width: Option<u32>,
    /// Draw each variant's % of the fastest copy, and the naive transpose's GB/s, against the size to
    /// FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 2, value_parser = ranges::WARMUP.parser(), help = ranges::WARMUP.help("Untimed launches before timing"))]
    warmup: u32,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help("Timed launches per kernel"))]
    iters: u32,
    #[command(flatten)]
    gpu: DeviceArg,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(ctx: &Context, a: &TransposeArgs) -> Result<Outcome> {
    if !a.bench {
        return Err(usage(
            "transpose needs --bench (a single transpose is `warpscope sweep transpose-shared --block 32x8`)",
        ));
    }
    let to = a.out.to();
    let study = super::study(ctx, &a.gpu, (a.warmup, a.iters), &a.out, &to, a.plot.as_deref())?;
    transpose_bench::Request { sizes: &a.sizes, width: a.width, study }
        .run()
        .map_err(|e| e.or_smaller("choose smaller --sizes (and --width)"))
}
