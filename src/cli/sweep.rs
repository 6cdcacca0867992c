//! `warpscope sweep` and `warpscope run`: block lists in, verified and timed records out.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::kernels::{self, Problem};
use warpscope::record::{Record, Status};
use warpscope::sweep::{self, Event, Options};
use warpscope::{Error, Result, gpu, report, spec};

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
    /// Flush L2 before every timed launch (a scratch buffer of twice the L2 is overwritten outside the
    /// timed events): cold-cache times instead of warm ones.
    #[arg(long)]
    cold: bool,
    /// Instead of a fixed --iters, time in batches until the spread (IQR / median) is at most PCT
    /// percent, within --min-iters, --max-iters and --max-time.
    #[arg(long, value_name = "PCT", conflicts_with = "iters")]
    until_noise: Option<f64>,
    /// With --until-noise: the first batch (and each further batch) of timed launches.
    #[arg(long, default_value_t = 10, requires = "until_noise")]
    min_iters: u32,
    /// With --until-noise: timed launches at most per configuration.
    #[arg(long, default_value_t = 1000, requires = "until_noise")]
    max_iters: u32,
    /// With --until-noise: seconds of timing at most per configuration.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "until_noise")]
    max_time: f64,
    /// Time the configurations round-robin (five slices of --iters each) so that clock and temperature
    /// drift does not favour the first ones; records are reported when all are timed.
    #[arg(long, conflicts_with = "until_noise")]
    interleave: bool,
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
    /// Skip the configurations already in FILE (a JSON report or JSON Lines; failed ones run again) and
    /// keep its records: with `--format jsonl -o FILE` the new records are appended to it.
    #[arg(long, value_name = "FILE")]
    resume: Option<std::path::PathBuf>,
    /// Draw the sweep's figure to FILE (.svg or .png): time and every metric per configuration,
    /// measured beside estimated, occupancy against block size, and a block.x x block.y heatmap.
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

/// The same configuration: kernel entry, problem and block.
fn same_config(r: &Record, kernel: &dyn kernels::Kernel, block: spec::Dim3) -> bool {
    r.kernel == kernel.entry() && r.problem == kernel.problem() && r.block == block && r.status != Status::Failed
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

pub fn sweep(ctx: &Context, a: &SweepArgs, single: bool) -> Result<ExitCode> {
    let (kernel, blocks) = a.shapes.resolve()?;
    if single && blocks.len() != 1 {
        return Err(usage(format!("run takes exactly one block (got {}): use sweep for lists", blocks.len())));
    }
    let resumed = match &a.resume {
        Some(path) if path.exists() => report::read(path)?.records,
        Some(path) => return Err(usage(format!("--resume {}: no such file", path.display()))),
        None => Vec::new(),
    };
    super::check_plot(a.plot.as_deref())?;
    let append = matches!((&a.resume, &a.out.output), (Some(r), Some(o)) if same_file(r, o));
    if !append {
        a.out.check()?;
    }
    let total = blocks.len();
    let blocks: Vec<spec::Dim3> =
        blocks.into_iter().filter(|&b| !resumed.iter().any(|r| same_config(r, kernel.as_ref(), b))).collect();
    if !resumed.is_empty() && !a.out.quiet {
        eprintln!("resuming: {} of {total} configurations already done, {} to run", total - blocks.len(), blocks.len());
    }
    let mut stream = a.out.stream(append)?;
    if let Some(w) = stream.as_mut().filter(|_| !append) {
        for r in &resumed {
            w.write_all(report::jsonl::line(r)?.as_bytes()).map_err(|e| Error::Output(e.to_string()))?;
        }
    }
    if blocks.is_empty() {
        let mut report = warpscope::record::Report::new(warpscope::gpu::DeviceInfo::unknown());
        report.records = resumed;
        if stream.is_none() {
            a.out.emit(&report)?;
        }
        return Ok(exit_for(&report));
    }
    let seed = a
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    let metrics = a.metrics.as_deref().map(warpscope::metrics::parse_requested).transpose()?.unwrap_or_default();
    let until_noise = match a.until_noise {
        None => None,
        Some(pct) if !(pct.is_finite() && pct > 0.0) => {
            return Err(usage(format!("--until-noise {pct}: a spread in percent, more than 0")));
        }
        Some(_) if a.min_iters < 3 => return Err(usage(format!("--min-iters {}: at least 3", a.min_iters))),
        Some(_) if a.max_iters < a.min_iters => {
            return Err(usage(format!("--max-iters {} is under --min-iters {}", a.max_iters, a.min_iters)));
        }
        Some(_) if !(a.max_time.is_finite() && a.max_time > 0.0) => {
            return Err(usage(format!("--max-time {}: seconds, more than 0", a.max_time)));
        }
        Some(pct) => Some(sweep::Noise { pct, min_iters: a.min_iters, max_iters: a.max_iters, max_secs: a.max_time }),
    };
    let opts = Options {
        warmup: a.warmup,
        iters: a.iters,
        seed,
        model: a.model,
        metrics,
        cold: a.cold,
        until_noise,
        interleave: a.interleave,
    };
    let mut backend = gpu::open(ctx.backend, ctx.device)?;
    let device = backend.info().name.clone();
    let out = &a.out;
    let mut print_event = |e: Event<'_>| match e {
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
        Event::Record(r) => {
            out.line(&r.seed_line());
            if let Some(c) = r.conditions.as_ref().filter(|c| c.throttled()) {
                let clock = c.sm_clock_mhz.map(|[lo, hi]| format!(", SM clock {lo}-{hi} MHz")).unwrap_or_default();
                eprintln!(
                    "warning: {} {} was timed while the GPU throttled ({}){clock}: its time is not comparable",
                    r.kernel,
                    r.block,
                    c.throttle.join(", ")
                );
            }
            if let (Some(n), Some(t)) = (opts.until_noise, &r.time_ms)
                && t.iqr_pct() > n.pct
                && !out.quiet
            {
                eprintln!(
                    "note: {} {}: spread {:.2}% still above {}% after {} timed launches (a cap was reached)",
                    r.kernel,
                    r.block,
                    t.iqr_pct(),
                    n.pct,
                    t.iters
                );
            }
            if let Some(w) = stream.as_mut() {
                // Each line is flushed as its configuration finishes: a killed run loses nothing done.
                let written = report::jsonl::line(r).and_then(|l| {
                    w.write_all(l.as_bytes()).and_then(|_| w.flush()).map_err(|e| Error::Output(e.to_string()))
                });
                if let Err(e) = written {
                    eprintln!("error: {e}");
                    sweep::interrupt();
                }
            }
        }
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
    };
    let bar = out.progress(blocks.len());
    let report = sweep::run(backend.as_mut(), kernel.as_ref(), &blocks, &opts, &mut |e| {
        if let Event::Record(_) = e {
            bar.inc(1);
        }
        bar.suspend(|| print_event(e))
    });
    bar.finish_and_clear();
    let report = report?;
    let ran = report.records.len();
    let mut report = report;
    report.records.splice(0..0, resumed);
    if stream.is_none() {
        out.emit(&report)?;
    }
    super::plot_report(a.plot.as_deref(), &report)?;
    if sweep::interrupted() {
        eprintln!(
            "interrupted: {ran} of {} configurations finished and kept{}",
            blocks.len(),
            out.output.as_ref().map(|p| format!(" in {}", p.display())).unwrap_or_default()
        );
    }
    Ok(exit_for(&report))
}
