//! `warpscope blur`: blur an image on the GPU with a chosen algorithm, benchmark every algorithm against
//! the seed's estimates, or print those estimates offline.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::Outcome;
use warpscope::kernels::Gaussian;
use warpscope::report::figures;
use warpscope::report::listings::BlurTable;
use warpscope::studies::blur_pipelines::{self as blur, Algo};
use warpscope::studies::image_io;
use warpscope::sweep::{Event, Options};
use warpscope::{Result, gpu};

use warpscope::output::{self, Named};

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
    match (a.estimate, a.bench, &a.image) {
        (true, false, None) => {
            let copy = a.copy_mps.ok_or_else(|| usage("--estimate needs --copy-mps MPS (the seed measured 14200)"))?;
            print_listing(&BlurTable(&blur::estimates(copy, &g)), a.format)?;
            Ok(Outcome::Ok)
        }
        (false, true, None) => bench(ctx, a, g),
        (false, false, Some(path)) => image(ctx, a, g, path),
        _ => Err(usage("blur takes one of --image FILE, --bench or --estimate --copy-mps MPS")),
    }
}

fn bench(ctx: &Context, a: &BlurArgs, g: Gaussian) -> Result<Outcome> {
    warpscope::report::check_plot(a.plot.as_deref())?;
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let opts = Options { warmup: 2, iters: a.iters, seed, ..Default::default() };
    let mut backend = gpu::open(ctx.backend, a.gpu.device)?;
    let bar = warpscope::report::progress_bar(a.quiet, blur::count(a.width, a.height, g)?);
    let measured = blur::bench(backend.as_mut(), a.width, a.height, g, &opts, &mut |e| {
        if let Event::Record(r) = e {
            bar.inc(1);
            if !a.quiet {
                bar.suspend(|| errln!("{} {}", r.seed_line(), r.problem));
            }
        }
    });
    bar.finish_and_clear();
    let (rows, report) = measured.map_err(|e| e.or_smaller("choose a smaller image (--width/--height)"))?;
    print_listing(&BlurTable(&rows), a.format)?;
    if let Some(path) = &a.plot {
        let title = format!("Gaussian blur {}x{}, sigma {}, on {}", a.width, a.height, g.sigma, report.device.name);
        figures::blur_bench(&rows, &title, path)?;
        if !a.quiet {
            errln!("wrote {}", path.display());
        }
    }
    Ok(super::exit_for(&report))
}

fn image(ctx: &Context, a: &BlurArgs, g: Gaussian, path: &std::path::Path) -> Result<Outcome> {
    let algo = Algo::parse(&a.algo)?;
    if let Some(out) = &a.output {
        output::check_distinct(&[Named { what: "--image", path }], &[Named { what: "-o", path: out }])?;
        image_io::check_output(out)?;
    }
    let (w, h) = image_io::dimensions(path)?;
    let mut backend = gpu::open(ctx.backend, a.gpu.device)?;
    blur::check_image_memory(backend.as_ref(), w, h).map_err(|e| e.or_smaller("blur a smaller image"))?;
    let img = image_io::read(path)?;
    let b = blur::blur_image(backend.as_mut(), algo, &img.planes, img.w, img.h, g)?;
    // The verdict line shows even with -q when the bound is exceeded.
    if !a.quiet || !b.within_bound {
        let bound = algo.bound();
        errln!(
            "{}: {}x{} {}, {} on {}, sigma {}: {} of {} pixel values match the CPU implementation; against the float64 Gaussian: max |error| {:.2e} ({:.3} of 255), relative L2 {:.2e} (bound {:.0e} / {:.0e}: {})",
            path.display(),
            img.w,
            img.h,
            if img.planes.len() == 3 { "RGB" } else { "gray" },
            algo.label(&g),
            backend.info().name,
            g.sigma,
            b.values() - b.mismatches,
            b.values(),
            b.max_abs_error,
            b.max_abs_error * 255.0,
            b.rel_l2_error,
            bound.0,
            bound.1,
            if b.within_bound { "within" } else { "EXCEEDED" }
        );
    }
    if let Some(out) = &a.output {
        image_io::write(out, &image_io::Planes { w: img.w, h: img.h, planes: b.planes })?;
        if !a.quiet && !output::is_stdout(out) {
            errln!("wrote {}", out.display());
        }
    }
    if b.mismatches > 0 {
        errln!("FAILED: {} values differ from the CPU implementation", b.mismatches);
        return Ok(Outcome::CheckFailed);
    }
    if !b.within_bound {
        errln!("FAILED: the blur is outside the bound stated for {}", algo.name());
        return Ok(Outcome::CheckFailed);
    }
    Ok(Outcome::Ok)
}
