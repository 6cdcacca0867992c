//! `warpscope sweep` and `warpscope run`: block lists in, verified and timed records out.

use clap::Args;

use warpscope::kernels::Problem;
use warpscope::session::{Measure, Request, What};
use warpscope::spec::BlockLists;
use warpscope::sweep::Noise;
use warpscope::{Outcome, Result};

use super::{Context, DeviceArg, OutputArgs, ranges};

/// What to run: a kernel, its problem size and the block shapes (shared by `sweep`, `run`, `estimate`).
/// The kernel file's own options also conflict with a kernel's name: clap does not check `requires`
/// against an argument that conflicts with one given, so `sweep sum-matrix --size n=4` would otherwise
/// drop `--size` without a word.
#[derive(Args, Debug)]
pub struct Shapes {
    /// Kernel to run (`warpscope kernels` lists them); or give --kernel-file.
    #[arg(required_unless_present = "kernel_file")]
    kernel: Option<String>,
    /// Your own kernel: a kernel file (TOML, docs/KERNEL-FILE.md) naming a .cu/.ptx/.cubin/.fatbin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kernel", "nx", "ny", "frames", "n", "sigma"])]
    kernel_file: Option<std::path::PathBuf>,
    /// A problem size of the kernel file (repeatable): NAME=VALUE.
    #[arg(long = "size", value_name = "NAME=VALUE", requires = "kernel_file", conflicts_with = "kernel")]
    sizes: Vec<String>,
    /// Values of a kernel file's compile-time parameter (repeatable): NAME=V1,V2 or ranges (1..8, 32..256:32).
    #[arg(long = "define", value_name = "NAME=VALUES", requires = "kernel_file", conflicts_with = "kernel")]
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
    /// The block lists, as given.
    pub fn blocks(&self) -> BlockLists {
        BlockLists { block: self.block.clone(), bx: self.bx.clone(), by: self.by.clone(), bz: self.bz.clone() }
    }

    /// The built-in kernel's name (`None` when a kernel file is given instead).
    pub fn kernel(&self) -> Option<&str> {
        self.kernel.as_deref()
    }

    /// The kernel file and its `--size` and `--define` values, when one is given.
    pub fn kernel_file(&self) -> Option<(&std::path::Path, &[String], &[String])> {
        self.kernel_file.as_deref().map(|p| (p, self.sizes.as_slice(), self.defines.as_slice()))
    }

    /// The problem size of a built-in kernel, as given.
    pub fn problem(&self) -> Problem {
        Problem { nx: self.nx, ny: self.ny, frames: self.frames, n: self.n, sigma: self.sigma }
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
    /// Flush L2 before every timed launch (a scratch buffer of twice the L2 is read outside the timed
    /// events, leaving L2 clean): cold-cache times instead of warm ones.
    #[arg(long)]
    cold: bool,
    #[arg(long, value_name = "PCT", conflicts_with = "iters", value_parser = ranges::NOISE_PCT.parser(),
        help = ranges::NOISE_PCT.help(
            "Instead of a fixed --iters, time in batches until the spread (IQR / median) is at most PCT percent, \
             within --min-iters, --max-iters and --max-time"
        ))]
    until_noise: Option<f64>,
    #[arg(long, default_value_t = 10, requires = "until_noise", conflicts_with = "iters", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: the first batch (and each further batch) of timed launches"))]
    min_iters: u32,
    #[arg(long, default_value_t = 1000, requires = "until_noise", conflicts_with = "iters", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: timed launches at most per configuration"))]
    max_iters: u32,
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "until_noise", conflicts_with = "iters",
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
        "Give up when one configuration keeps the GPU busy longer than SECS (its verified launch, timed launches \
         and counters; the host's work between them does not count; a hung kernel cannot be stopped any other \
         way): exit 124, the finished configurations written"
    ))]
    timeout: Option<f64>,
    /// Only these configurations of a kernel file's sweep, by index (how a sweep goes on in a new
    /// process after a kernel faulted).
    #[arg(long, value_name = "LIST", hide = true, requires = "kernel_file", conflicts_with = "kernel")]
    configs: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

/// `sweep` (and `run`: `single`, exactly one configuration).
pub fn sweep(ctx: &Context, a: &SweepArgs, single: bool) -> Result<Outcome> {
    let s = &a.shapes;
    let what = match (&s.kernel_file, &s.kernel) {
        (Some(path), _) => What::File {
            path: path.clone(),
            sizes: s.sizes.clone(),
            defines: s.defines.clone(),
            configs: a.configs.clone(),
        },
        (None, name) => What::Builtin { name: name.clone().unwrap_or_default(), problem: s.problem() },
    };
    let until_noise =
        a.until_noise.map(|pct| Noise { pct, min_iters: a.min_iters, max_iters: a.max_iters, max_secs: a.max_time });
    let measure = Measure {
        warmup: a.warmup,
        iters: a.iters,
        seed: a.seed,
        model: a.model,
        metrics: a.metrics.clone(),
        cold: a.cold,
        until_noise,
        interleave: a.interleave,
    };
    let request = Request {
        backend: ctx.backend,
        what,
        blocks: s.blocks(),
        measure,
        device: a.gpu.device,
        devices: a.devices.clone(),
        shard: a.shard.clone(),
        resume: a.resume.clone(),
        timeout: a.timeout,
        to: a.out.to(),
        visuals: a.fig.visuals(),
        single,
        names: super::flag,
    };
    // Only a built-in kernel's problem is made smaller by these options.
    let builtin = s.kernel_file.is_none();
    let fix =
        if builtin { "choose a smaller problem (--nx/--ny/--frames)" } else { "choose smaller problem sizes (--size)" };
    request.run().map_err(|e| e.or_smaller(fix))
}
