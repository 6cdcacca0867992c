//! `warpscope blur`: blur an image on the GPU with a chosen algorithm, benchmark every algorithm against
//! the seed's estimates, or print those estimates offline.

use std::path::PathBuf;

use clap::Args;

use warpscope::kernels::Gaussian;
use warpscope::output::{self, Named};
use warpscope::report::listings::BlurTable;
use warpscope::studies::blur;
use warpscope::studies::blur_pipelines::{self, Algo};
use warpscope::{Outcome, Result};

use super::{Context, DeviceArg, ListFormat, print_listing, ranges, usage};

/// Arguments of `blur`.
#[derive(Args, Debug)]
pub struct BlurArgs {
    /// Image to blur (PNG, JPEG, PGM/PPM; gray or RGB).
    #[arg(long, value_name = "FILE")]
    image: Option<PathBuf>,
    /// Where to write the blurred image (PNG, JPEG, PGM/PPM by extension; `-o -`: PNG on standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[arg(long, default_value_t = 5.0, value_parser = ranges::SIGMA.parser(), help = ranges::SIGMA.help(
        "Gaussian sigma, pixels (taps: 2 ceil(3 sigma) + 1)"
    ))]
    sigma: f32,
    /// Algorithm: direct, separable, separable-tiled, recursive-vh, recursive (rgV+T+rgV+T), recursive-seg.
    #[arg(long, default_value = "recursive")]
    algo: String,
    /// Benchmark every algorithm on a random image and compare with the seed's estimates.
    #[arg(long)]
    bench: bool,
    #[arg(long, default_value_t = 4096, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Image width for --bench"))]
    width: u32,
    #[arg(long, default_value_t = 4096, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Image height for --bench"))]
    height: u32,
    /// Print the seed's estimate table for this copy rate, without a GPU.
    #[arg(long)]
    estimate: bool,
    #[arg(long, value_name = "MPS", value_parser = ranges::MPS.parser(), help = ranges::MPS.help(
        "Copy rate, MP/s, for --estimate (the seed measured 14,200)"
    ))]
    copy_mps: Option<f64>,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help("Timed launches per kernel (--bench)"))]
    iters: u32,
    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// With --bench: draw each algorithm's measured and estimated MP/s, and the % of its estimate, to
    /// FILE (.svg or .png).
    #[arg(long, value_name = "FILE", requires = "bench")]
    plot: Option<std::path::PathBuf>,
    /// Print nothing but the tables (no progress or per-stage lines).
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    gpu: DeviceArg,
}

pub fn run(ctx: &Context, a: &BlurArgs) -> Result<Outcome> {
    let g = Gaussian::new(a.sigma)?;
    if a.output.is_some() && a.image.is_none() {
        return Err(usage("-o is where the blurred --image goes; --bench and --estimate print tables"));
    }
    let device = (ctx.backend, a.gpu.device);
    match (a.estimate, a.bench, &a.image) {
        (true, false, None) => {
            let copy = a.copy_mps.ok_or_else(|| usage("--estimate needs --copy-mps MPS (the seed measured 14200)"))?;
            print_listing(&BlurTable(&blur_pipelines::estimates(copy, &g)), a.format)?;
            Ok(Outcome::Ok)
        }
        (false, true, None) => blur::Bench {
            device,
            width: a.width,
            height: a.height,
            gaussian: g,
            iters: a.iters,
            format: a.format.into(),
            plot: a.plot.as_deref(),
            quiet: a.quiet,
        }
        .run()
        .map_err(|e| e.or_smaller("choose a smaller image (--width/--height)")),
        (false, false, Some(path)) => {
            let algo = Algo::parse(&a.algo)?;
            if let Some(out) = &a.output {
                output::check_distinct(&[Named { what: "--image", path }], &[Named { what: "-o", path: out }])?;
            }
            blur::Image { device, path, output: a.output.as_deref(), algo, gaussian: g, quiet: a.quiet }.run()
        }
        _ => Err(usage("blur takes one of --image FILE, --bench or --estimate --copy-mps MPS")),
    }
}
