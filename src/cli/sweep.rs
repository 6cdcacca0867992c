//! `warpscope sweep` and `warpscope run`: block lists in, verified and timed records out.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::kernels::{self, Problem};
use warpscope::session::{Devices, Session};
use warpscope::sweep::{self, Options};
use warpscope::userkernel::sweep::FileSession;
use warpscope::userkernel::{KernelFile, parse_define};
use warpscope::{Outcome, Result, spec};

use super::{Context, DeviceArg, OutputArgs, ranges, usage};

/// What to run: a kernel, its problem size and the block shapes (shared by `sweep`, `run`, `estimate`).
#[derive(Args, Debug)]
pub struct Shapes {
    /// Kernel to run (`warpscope kernels` lists them); or give --kernel-file.
    #[arg(required_unless_present = "kernel_file")]
    kernel: Option<String>,
    /// Your own kernel: a kernel file (TOML, docs/KERNEL-FILE.md) naming a .cu/.ptx/.cubin/.fatbin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kernel", "nx", "ny", "frames", "n", "sigma"])]
    kernel_file: Option<std::path::PathBuf>,
    /// A problem size of the kernel file (repeatable): NAME=VALUE.
    #[arg(long = "size", value_name = "NAME=VALUE", requires = "kernel_file")]
    sizes: Vec<String>,
    /// Values of a kernel file's compile-time parameter (repeatable): NAME=V1,V2 or ranges (1..8, 32..256:32).
    #[arg(long = "define", value_name = "NAME=VALUES", requires = "kernel_file")]
    defines: Vec<String>,
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
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help(
        "Problem width: matrix columns or frame width (default: the kernel's, see `warpscope kernels`)"
    ))]
    nx: Option<u32>,
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Problem height: matrix rows or frame height"))]
    ny: Option<u32>,
    #[arg(long, value_parser = ranges::FRAMES.parser(), help = ranges::FRAMES.help("Frames per launch, for the image kernels"))]
    frames: Option<u32>,
    #[arg(long, value_parser = ranges::MAD_N.parser(), help = ranges::MAD_N.help(
        "The kernel's own parameter: multiply-adds per element for `mad` (0, 3, 6, 12, 24, 48, 96)"
    ))]
    n: Option<u32>,
    #[arg(long, value_parser = ranges::SIGMA.parser(), help = ranges::SIGMA.help("Gaussian sigma, for the blur kernels"))]
    sigma: Option<f32>,
}

impl Shapes {
    /// The kernel bound to its problem, and the block list.
    pub fn resolve(&self) -> Result<(Box<dyn kernels::Kernel>, Vec<spec::Dim3>)> {
        let Some(name) = &self.kernel else {
            return Err(usage("this command does not take --kernel-file: name a built-in kernel"));
        };
        let blocks =
            spec::blocks_from(self.block.as_deref(), self.bx.as_deref(), self.by.as_deref(), self.bz.as_deref())?;
        let kernel = kernels::lookup(
            name,
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
    #[command(flatten)]
    gpu: DeviceArg,
    #[arg(long, default_value_t = 2, value_parser = ranges::WARMUP.parser(), help = ranges::WARMUP.help(
        "Untimed launches before timing (the verified launch is the first)"
    ))]
    warmup: u32,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help(
        "Timed launches per configuration"
    ))]
    iters: u32,
    /// Flush L2 before every timed launch (a scratch buffer of twice the L2 is overwritten outside the
    /// timed events): cold-cache times instead of warm ones.
    #[arg(long)]
    cold: bool,
    #[arg(long, value_name = "PCT", conflicts_with = "iters", value_parser = ranges::NOISE_PCT.parser(),
        help = ranges::NOISE_PCT.help(
            "Instead of a fixed --iters, time in batches until the spread (IQR / median) is at most PCT percent, \
             within --min-iters, --max-iters and --max-time"
        ))]
    until_noise: Option<f64>,
    #[arg(long, default_value_t = 10, requires = "until_noise", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: the first batch (and each further batch) of timed launches"))]
    min_iters: u32,
    #[arg(long, default_value_t = 1000, requires = "until_noise", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: timed launches at most per configuration"))]
    max_iters: u32,
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "until_noise",
        value_parser = ranges::MAX_TIME.parser(),
        help = ranges::MAX_TIME.help("With --until-noise: seconds of timing at most per configuration"))]
    max_time: f64,
    /// Time the configurations round-robin (five slices of --iters each) so that clock and temperature
    /// drift does not favour the first ones; records are reported when all are timed.
    #[arg(long, conflicts_with = "until_noise")]
    interleave: bool,
    #[arg(long, value_parser = ranges::SEED.parser(), help = ranges::SEED.help("Seed of the random inputs (default: fresh each run)"))]
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
    #[command(flatten)]
    fig: super::report::FigureArgs,
    /// Spread the configurations over these GPUs of this host (`all` or `0,1`), a thread and context
    /// each: each configuration goes to the next free GPU (longest predicted first), the inputs and CPU
    /// reference are made once for all; every record names its device.
    #[arg(long, value_name = "LIST", conflicts_with = "device")]
    devices: Option<String>,
    /// Run the Kth of N deterministic slices of the sweep (1-based: `--shard 2/4`), for multi-host
    /// runs; `warpscope merge` joins the slices' result files.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    #[arg(long, value_name = "SECS", value_parser = ranges::TIMEOUT.parser(), help = ranges::TIMEOUT.help(
        "Give up when one configuration takes longer than SECS (a hung kernel cannot be stopped any other way): \
         exit 124, the finished configurations written"
    ))]
    timeout: Option<f64>,
    /// Only these configurations of a kernel file's sweep, by index (how a sweep goes on in a new
    /// process after a kernel faulted).
    #[arg(long, value_name = "LIST", hide = true, requires = "kernel_file")]
    configs: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

/// The measuring options, checked.
fn options(a: &SweepArgs) -> Result<Options> {
    let seed = a
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    let metrics = a.metrics.as_deref().map(warpscope::metrics::parse_requested).transpose()?.unwrap_or_default();
    // Each value's own range is checked by the parser (ranges.rs); what is left is how they combine.
    let until_noise = match a.until_noise {
        None => None,
        Some(_) if a.max_iters < a.min_iters => {
            return Err(usage(format!("--max-iters {} is under --min-iters {}", a.max_iters, a.min_iters)));
        }
        Some(pct) => Some(sweep::Noise { pct, min_iters: a.min_iters, max_iters: a.max_iters, max_secs: a.max_time }),
    };
    Ok(Options {
        warmup: a.warmup,
        iters: a.iters,
        seed,
        model: a.model,
        metrics,
        cold: a.cold,
        until_noise,
        interleave: a.interleave,
        // --timeout judges each configuration alone: its counters are measured before the next one runs.
        counter_window: if a.timeout.is_some() { 1 } else { sweep::COUNTER_WINDOW },
    })
}

/// `sweep --kernel-file` (and `run`): a user's kernel on one device.
fn kernel_file(ctx: &Context, a: &SweepArgs, path: &std::path::Path, single: bool) -> Result<Outcome> {
    let not_yet = [
        ("--devices", a.devices.is_some()),
        ("--shard", a.shard.is_some()),
        ("--resume", a.resume.is_some()),
        ("--timeout", a.timeout.is_some()),
        ("--interleave", a.interleave),
        ("--until-noise", a.until_noise.is_some()),
        ("--cold", a.cold),
    ];
    if let Some((flag, _)) = not_yet.iter().find(|(_, on)| *on) {
        return Err(usage(format!("{flag} is not supported with --kernel-file yet")));
    }
    let sizes = a.shapes.sizes.iter().map(|s| super::name_value(s, "--size")).collect::<Result<Vec<_>>>()?;
    let defines = a.shapes.defines.iter().map(|d| parse_define(d)).collect::<Result<Vec<_>>>()?;
    let file = KernelFile::load(path, &sizes)?;
    let s = &a.shapes;
    let blocks = match (&s.block, &s.bx, &s.by, &s.bz) {
        (None, None, None, None) => None,
        _ => Some(spec::blocks_from(s.block.as_deref(), s.bx.as_deref(), s.by.as_deref(), s.bz.as_deref())?),
    };
    let only: Option<Vec<usize>> = a
        .configs
        .as_deref()
        .map(|l| {
            l.split(',')
                .map(|i| i.trim().parse::<usize>().map_err(|_| usage(format!("--configs '{l}'"))))
                .collect::<Result<Vec<usize>>>()
        })
        .transpose()?;
    let options = options(a)?;
    // The same sweep, in a new process: every option that shapes the configurations or their numbers.
    let mut rerun: Vec<String> = vec!["sweep".into(), "--kernel-file".into(), path.display().to_string()];
    for size in &file.sizes {
        rerun.extend(["--size".into(), format!("{}={}", size.name, size.value)]);
    }
    if let Some(b) = &blocks {
        rerun.extend(["--block".into(), b.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")]);
    }
    for d in &a.shapes.defines {
        rerun.extend(["--define".into(), d.clone()]);
    }
    rerun.extend([
        "--device".into(),
        a.gpu.device.to_string(),
        "--warmup".into(),
        options.warmup.to_string(),
        "--iters".into(),
        options.iters.to_string(),
        "--seed".into(),
        options.seed.to_string(),
        "--format".into(),
        "jsonl".into(),
        "-q".into(),
    ]);
    if let Some(m) = &a.metrics {
        rerun.extend(["--metrics".into(), m.clone()]);
    }
    FileSession {
        file: &file,
        blocks: blocks.as_deref(),
        defines: &defines,
        device: (ctx.backend, a.gpu.device),
        options: &options,
        to: &a.out.to(),
        visuals: &a.fig.visuals(),
        single,
        only: only.as_deref(),
        rerun: Some(rerun),
    }
    .run()
}

/// `sweep` (and `run`: `single`, exactly one block).
pub fn sweep(ctx: &Context, a: &SweepArgs, single: bool) -> Result<Outcome> {
    if let Some(path) = &a.shapes.kernel_file {
        return kernel_file(ctx, a, path, single);
    }
    let (kernel, blocks) = a.shapes.resolve()?;
    if single && blocks.len() != 1 {
        return Err(usage(format!("run takes exactly one block (got {}): use sweep for lists", blocks.len())));
    }
    Session {
        backend: ctx.backend,
        kernel: Arc::from(kernel),
        blocks,
        options: options(a)?,
        devices: a.devices.clone().map_or(Devices::One(a.gpu.device), Devices::Listed),
        shard: a.shard.as_deref().map(str::parse).transpose()?,
        resume: a.resume.clone(),
        to: a.out.to(),
        visuals: a.fig.visuals(),
        timeout: a.timeout,
        names: super::flag,
    }
    .run()
    .map_err(|e| e.or_smaller("choose a smaller problem (--nx/--ny/--frames)"))
}
