//! `warpscope peak`: memcpy, the copy kernels and the MAD curve, with where the kernel turns compute bound.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::Outcome;
use warpscope::kernels::MAD_COUNTS;
use warpscope::report::plot::{self, Labels, Panel, Series};
use warpscope::studies::peak::{self, FLOP_RATE, PIXEL_RATE};
use warpscope::sweep::{Event, Options};
use warpscope::{Result, gpu};

use super::{Context, DeviceArg, OutputArgs, exit_for, ranges};

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
    super::check_outputs(&[], &a.out, &[("--plot", a.plot.as_deref())])?;
    a.out.to().check()?;
    warpscope::report::check_plot(a.plot.as_deref())?;
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let opts = Options { warmup: a.warmup, iters: a.iters, seed, ..Default::default() };
    let mut backend = gpu::open(ctx.backend, a.gpu.device)?;
    let out = &a.out.to();
    let bar = out.progress(peak::count(a.nx, a.ny)?);
    let measured = peak::run(backend.as_mut(), a.nx, a.ny, a.block, &opts, &mut |e| {
        if let Event::Record(r) = e {
            bar.inc(1);
            bar.suspend(|| out.line(&r.seed_line()));
        }
    });
    bar.finish_and_clear();
    let (report, summary) = measured.map_err(|e| e.or_smaller("choose a smaller image (--nx/--ny)"))?;
    out.emit(&report)?;
    if !out.quiet {
        errln!("device-to-device memcpy: {:.1} GB/s", summary.memcpy_gbs);
        if let Some((name, pct)) = &summary.best_copy {
            errln!("fastest copy kernel: {name}, {pct:.1}% of memcpy");
        }
        match summary.compute_bound_from {
            Some(n) => errln!(
                "MAD curve: memory bound up to the MAD count before {n}; compute bound from {n} MADs (18+ % under MAD-0's rate from there)"
            ),
            None => errln!("MAD curve: memory bound for every N up to {}", MAD_COUNTS.last().unwrap_or(&0)),
        }
    }
    if let Some(path) = &a.plot {
        let curve = |metric: &str| -> Vec<(f64, f64)> {
            MAD_COUNTS
                .iter()
                .filter_map(|&n| {
                    let r = report.records.iter().find(|r| r.kernel == format!("mad{n}"))?;
                    Some((n as f64, r.metrics.iter().find(|m| m.name == metric)?.value))
                })
                .collect()
        };
        let name = &report.device.name;
        let rate = format!("MAD-N on {name}: pixels per second");
        let flops = format!("MAD-N on {name}: arithmetic");
        plot::panels(
            path,
            vec![
                Panel {
                    labels: Labels::new(rate, "multiply-adds per pixel (N)", "GP/s"),
                    series: vec![Series { label: "GP/s".into(), points: curve(PIXEL_RATE) }],
                    x_names: None,
                },
                Panel {
                    labels: Labels::new(flops, "multiply-adds per pixel (N)", "GFLOP/s"),
                    series: vec![Series { label: "GFLOP/s".into(), points: curve(FLOP_RATE) }],
                    x_names: None,
                },
            ],
        )?;
        errln!("wrote {}", path.display());
    }
    Ok(exit_for(&report))
}
