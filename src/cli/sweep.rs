//! `warpscope sweep` and `warpscope run`: block lists in, verified and timed records out.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::kernels::{self, Problem};
use warpscope::sweep::{self, Event, Options};
use warpscope::{Result, gpu, spec};

use super::{Context, OutputArgs, exit_for, usage};

/// What to run: a kernel, its problem size and the block shapes (shared by `sweep`, `run`, `estimate`).
#[derive(Args, Debug)]
pub struct Shapes {
    /// Kernel to run (`warpscope kernels` lists them).
    kernel: String,
    /// Block shapes, `BXxBY[xBZ]`, comma-separated: `32x32,32x16,16x32`.
    #[arg(long, value_name = "LIST")]
    block: Option<String>,
    /// block.x values for a cartesian sweep: `64,128,256` or `32..1024:32`.
    #[arg(long, value_name = "LIST")]
    bx: Option<String>,
    /// block.y values for a cartesian sweep.
    #[arg(long, value_name = "LIST")]
    by: Option<String>,
    /// block.z values for a cartesian sweep.
    #[arg(long, value_name = "LIST")]
    bz: Option<String>,
    /// Problem width: matrix columns or frame width (default: the kernel's, see `warpscope kernels`).
    #[arg(long)]
    nx: Option<u32>,
    /// Problem height: matrix rows or frame height.
    #[arg(long)]
    ny: Option<u32>,
    /// Frames per launch, for the image kernels.
    #[arg(long)]
    frames: Option<u32>,
    /// The kernel's own parameter: multiply-adds per element for `mad` (0, 3, 6, 12, 24, 48, 96).
    #[arg(long)]
    n: Option<u32>,
    /// Gaussian sigma, for the blur kernels.
    #[arg(long)]
    sigma: Option<f32>,
}

impl Shapes {
    /// The kernel bound to its problem, and the block list.
    pub fn resolve(&self) -> Result<(Box<dyn kernels::Kernel>, Vec<spec::Dim3>)> {
        let blocks =
            spec::blocks_from(self.block.as_deref(), self.bx.as_deref(), self.by.as_deref(), self.bz.as_deref())?;
        let kernel = kernels::lookup(
            &self.kernel,
            Problem { nx: self.nx, ny: self.ny, frames: self.frames, n: self.n, sigma: self.sigma },
        )?;
        Ok((kernel, blocks))
    }
}

/// Arguments of `sweep` and `run`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    shapes: Shapes,
    /// Untimed launches before timing (the verified launch is the first).
    #[arg(long, default_value_t = 2)]
    warmup: u32,
    /// Timed launches per configuration.
    #[arg(long, default_value_t = 20)]
    iters: u32,
    /// Seed of the random inputs (default: fresh each run).
    #[arg(long)]
    seed: Option<u64>,
    /// Put the time model's prediction and its error beside every measured time, and report the
    /// model's median absolute error and Spearman rank correlation over the sweep.
    #[arg(long)]
    model: bool,
    /// Measure these with hardware counters (CUPTI), beside the estimates: nvprof names
    /// (`warpscope metrics`), Nsight Compute metric names, or `all`.
    #[arg(long, value_name = "LIST")]
    metrics: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn sweep(ctx: &Context, a: &SweepArgs, single: bool) -> Result<ExitCode> {
    a.out.check()?;
    let (kernel, blocks) = a.shapes.resolve()?;
    if single && blocks.len() != 1 {
        return Err(usage(format!("run takes exactly one block (got {}): use sweep for lists", blocks.len())));
    }
    let seed = a
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    let metrics = a.metrics.as_deref().map(warpscope::metrics::parse_requested).transpose()?.unwrap_or_default();
    let opts = Options { warmup: a.warmup, iters: a.iters, seed, model: a.model, metrics };
    let mut backend = gpu::open(ctx.backend, ctx.device)?;
    let device = backend.info().name.clone();
    let out = &a.out;
    let report = sweep::run(backend.as_mut(), kernel.as_ref(), &blocks, &opts, &mut |e| match e {
        Event::Planned { total, invalid } => {
            if !out.quiet {
                eprintln!(
                    "{} {}: {total} config{} ({invalid} invalid), {} warm-up + {} timed launches each, on device {} ({device}), seed {seed}",
                    kernel.name(),
                    kernel.problem(),
                    if total == 1 { "" } else { "s" },
                    opts.warmup,
                    opts.iters,
                    ctx.device,
                );
            }
        }
        Event::Baseline(m) => {
            if !out.quiet {
                eprintln!("device-to-device memcpy: {:.1} GB/s ({})", m.value, m.source.as_str());
            }
        }
        Event::Record(r) => out.line(&r.seed_line()),
        Event::Counters(passes) => {
            if !out.quiet {
                eprintln!(
                    "hardware counters: {} metric{} through CUPTI, {passes} replay pass{} per config",
                    opts.metrics.len(),
                    if opts.metrics.len() == 1 { "" } else { "s" },
                    if passes == 1 { "" } else { "es" }
                );
            }
        }
        Event::NoCounters(why) => eprintln!("warning: measured metrics unavailable: {why}; showing estimates"),
        Event::Phase(name, secs) => {
            if out.verbose && !out.quiet {
                eprintln!("{name}: {secs:.3} s");
            }
        }
    })?;
    out.emit(&report)?;
    Ok(exit_for(&report))
}
